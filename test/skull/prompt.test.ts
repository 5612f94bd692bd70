import { describe, expect, it } from 'vitest';
import { buildPrompt, contextTurnsFor, promptBudget, RULES_FR, trimHistory, type Turn } from '../../prompts/skull/contextPrompt.js';
import { byteLength, encoderLoaded, o200k } from '../../actors/skull/tokens.js';

const history: Turn[] = [
  { role: 'user', text: 'Salut' },
  { role: 'assistant', text: 'Bonjour !' },
  { role: 'user', text: 'Une blague ?' },
  { role: 'assistant', text: 'Pourquoi…' },
  { role: 'user', text: 'Encore' },
  { role: 'assistant', text: 'Une autre…' },
];

describe('prompt assembly (spec unit test 1)', () => {
  it('has the four sections in the spec order, the French rules and the retained system text', () => {
    const p = buildPrompt({ system: 'Tu es un crâne poli.', user: 'raconte une blague', context: trimHistory(history, 1) }, 1707, o200k);
    const order = ['[SYSTEM]', '[RULES]', '[USER]', '[CONTEXT]'].map((s) => p.text.indexOf(s));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(p.system).toBe(`[SYSTEM] Tu es un crâne poli.\n[RULES] ${RULES_FR}`);
    expect(p.user).toContain('[USER] raconte une blague');
    expect(p.user).toContain('Utilisateur: Encore | Skull: Une autre…');
    expect(p.text).toContain('Réponds en français');
    expect(p.cut).toEqual([]);
  });

  it('keeps 1 turn + 1 reply for nano, 2/2 for the larger model', () => {
    expect(contextTurnsFor('gpt-5-nano')).toBe(1);
    expect(contextTurnsFor('gpt-5-mini')).toBe(2);
    expect(trimHistory(history, 1)).toEqual(history.slice(4));
    expect(trimHistory(history, 2)).toEqual(history.slice(2));
  });

  it('cuts hard to 70 % of the budget, counted with o200k_base: context first, then system, then user', () => {
    const total = 200;
    const budget = promptBudget(total);
    expect(budget).toBe(140);
    const long = 'Tu es un crâne très bavard qui adore les longues histoires. '.repeat(40);
    const p = buildPrompt({ system: long, user: 'raconte une blague', context: trimHistory(history, 2) }, total, o200k);
    expect(p.cut).toEqual(['context', 'system']);
    expect(o200k.count(p.text)).toBeLessThanOrEqual(budget);
    expect(o200k.count(p.text)).toBeGreaterThan(budget - 10);
    expect(p.user).toContain('[USER] raconte une blague');
    expect(encoderLoaded()).toBe(true);

    const huge = buildPrompt({ system: 'court', user: 'blague '.repeat(400), context: [] }, total, o200k);
    expect(huge.cut).toEqual(['user']);
    expect(o200k.count(huge.text)).toBeLessThanOrEqual(budget);
  });

  it('never counts with the encoder when bytes already fit (tokens ≤ bytes)', () => {
    const text = 'Bonjour, je suis un crâne.';
    expect(o200k.count(text)).toBeLessThanOrEqual(byteLength(text));
    expect(o200k.fits(text, byteLength(text))).toBe(true);
  });
});

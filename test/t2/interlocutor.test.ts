import { describe, expect, it } from 'vitest';
import { backgroundOf, CLOSING_ANSWER, FactSheetResponder, GREETING_ANSWER, NO_INFORMATION_ANSWER, VAGUE_ANSWER } from '../../actors/t2/factSheetResponder.js';
import { t2OfflineResponder } from '../../actors/t2/offlineResponder.js';
import { checkReply, RuleMonitor } from '../../actors/t2/ruleMonitor.js';
import { loadDialogues, play, seededSubject } from './eval/questions/set.js';

const cuisine = seededSubject('cours-de-cuisine');
const fact = (s: ReturnType<typeof seededSubject>, theme: string) => s.factSheet.find((f) => f.theme === theme)!.answer;
const responder = (s: ReturnType<typeof seededSubject>) => new FactSheetResponder({ factSheet: s.factSheet, background: backgroundOf(s) });

describe('offline interlocutor: answers the question asked from the fact sheet', () => {
  it('greets, answers the fact asked, says when the sheet has no answer, closes — never the gift voucher', () => {
    const r = responder(cuisine);
    expect(r.answer('Bonjour…')).toBe(GREETING_ANSWER);
    expect(r.answer('Bonjour, je voudrais offrir un atelier à un ami.')).toBe(GREETING_ANSWER);
    expect(r.answer('Quel est le prix d’un atelier ?')).toBe(fact(cuisine, 'prix'));
    expect(r.answer('Est-ce qu’il faut apporter un tablier ?')).toBe(NO_INFORMATION_ANSWER);
    expect(r.answer('Mon ami ne mange pas de viande, c’est possible ?')).toBe(fact(cuisine, 'végétarien'));
    expect(r.answer('Le bon cadeau est valable combien de temps ?')).toBe(fact(cuisine, 'bon cadeau'));
    expect(r.answer('Euh…')).toBe(VAGUE_ANSWER);
    expect(r.answer('merci, bonne journée')).toBe(CLOSING_ANSWER);
  });

  it('does not give a fact again unless it is asked again', () => {
    const club = seededSubject('club-de-sport');
    const r = responder(club);
    expect(r.answer('Quel est le prix de l’abonnement ?')).toBe(fact(club, 'tarifs'));
    expect(r.answer('Et pour le sauna, c’est quel prix ?')).toBe(NO_INFORMATION_ANSWER);
    expect(r.answer('Pardon, vous pouvez répéter le prix ?')).toBe(fact(club, 'tarifs'));
    expect(r.answer('Et l’abonnement, il coûte combien déjà ?')).toBe(fact(club, 'tarifs'));
  });

  it('greets back before a first answer when the greeting comes with a question, within 25 words', () => {
    const flat = seededSubject('appartement-centre-ville');
    const r = responder(flat);
    const first = r.answer('Bonjour, combien coûte le loyer ?');
    expect(first).toBe(`Bonjour. ${fact(flat, 'loyer')}`);
    expect(checkReply(first)).toEqual([]);
    expect(r.answer('Bonjour, et le chauffage est compris ?')).toBe(fact(flat, 'charges'));
  });

  it('the fixed answers keep the §3 rules (15–25 words, no question, no closing formula)', () => {
    for (const a of [GREETING_ANSWER, CLOSING_ANSWER, NO_INFORMATION_ANSWER, VAGUE_ANSWER]) expect([a, checkReply(a)]).toEqual([a, []]);
    // « j'ai », « n'ai » are not the acronym AI.
    expect(checkReply('Je n’ai pas cette information, mais j’ai noté votre demande et je la transmettrai au responsable demain matin.')).toEqual([]);
    expect(checkReply('I am an AI and I cannot visit this apartment, but the rent is nine hundred dollars per month.')).toContain('no_ai_mention');
  });

  it('the offline provider is stateless: the earlier replies in the request say what was already given', () => {
    const hints = { factSheet: cuisine.factSheet, background: backgroundOf(cuisine) };
    const ask = (messages: Array<{ role: 'user' | 'assistant'; content: string }>) => t2OfflineResponder({ model: 'offline', messages, purpose: 't2', offlineHints: hints });
    const price = fact(cuisine, 'prix');
    expect(ask([{ role: 'user', content: 'C’est combien ?' }])).toBe(price);
    // The same vague price question after the price was given, with a word the sheet does not know.
    const again = [{ role: 'user' as const, content: 'Quel est le prix ?' }, { role: 'assistant' as const, content: price }, { role: 'user' as const, content: 'Et le tablier, il est à quel prix ?' }];
    expect(ask(again)).toBe(NO_INFORMATION_ANSWER);
  });

  it('answers at least 95 % of the tuning questions as labelled (bench/t2-interlocutor.ts prints the figures)', () => {
    const played = loadDialogues('tune').flatMap(play);
    const right = played.filter((p) => p.got === p.expect).length;
    expect(right / played.length).toBeGreaterThanOrEqual(0.95);
    // Greetings and closings are never answered with a fact.
    for (const p of played.filter((x) => x.expect === 'greeting' || x.expect === 'closing')) expect(p.got, p.q).toBe(p.expect);
  });
});

describe('rule monitor: reports what the interlocutor actually did', () => {
  const monitor = () => new RuleMonitor(() => ({ factSheet: cuisine.factSheet, background: backgroundOf(cuisine) }));
  const turn = (m: RuleMonitor, q: string, reply: string) => {
    m.candidate(q);
    return m.reply(reply, true);
  };

  it('a fact given to a greeting or a goodbye, or unrelated to the question, is off topic; an unasked repeat is a repeat', () => {
    const m = monitor();
    expect(turn(m, 'Bonjour…', fact(cuisine, 'bon cadeau'))).toEqual(['answers_question']);
    expect(turn(m, 'Quel est le prix d’un atelier ?', fact(cuisine, 'prix'))).toEqual([]);
    expect(turn(m, 'Est-ce qu’il faut apporter un tablier ?', fact(cuisine, 'prix'))).toEqual(['answers_question', 'no_repeat']);
    expect(turn(m, 'merci, bonne journée', fact(cuisine, 'bon cadeau'))).toEqual(['answers_question', 'no_repeat']);
    const r = m.report();
    expect(r).toMatchObject({ replies: 4, compliant: 1 });
    expect(r.rules.find((x) => x.rule === 'answers_question')).toMatchObject({ violations: 3 });
    expect(r.rules.find((x) => x.rule === 'no_repeat')).toMatchObject({ violations: 2 });
  });

  it('the right answers, a fact asked again and a model’s paraphrase are not flagged', () => {
    const m = monitor();
    expect(turn(m, 'Bonjour…', GREETING_ANSWER)).toEqual([]);
    expect(turn(m, 'Quel est le prix ?', 'Chaque atelier de trois heures coûte 95 dollars par personne, ingrédients et dégustation compris dans le prix.')).toEqual([]);
    expect(turn(m, 'Pardon, le prix c’était combien déjà ?', fact(cuisine, 'prix'))).toEqual([]);
    expect(turn(m, 'Il faut apporter un tablier ?', NO_INFORMATION_ANSWER)).toEqual([]);
    expect(turn(m, 'Merci, au revoir.', CLOSING_ANSWER)).toEqual([]);
    expect(m.report()).toMatchObject({ replies: 5, compliant: 5 });
  });

  it('without a fact sheet only the text rules are checked', () => {
    const m = new RuleMonitor();
    m.candidate('Bonjour…');
    expect(m.reply(fact(cuisine, 'bon cadeau'), true)).toEqual([]);
  });
});

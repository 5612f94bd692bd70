/**
 * Prompt assembly of the Skull (docs/skull.md#what-happens-to-an-input, step 6), in the spec's layout:
 *
 *   [SYSTEM] {prompt_system}
 *   [RULES] Réponds en français, concis (2-3 phrases). Évite politique, santé, argent, données personnelles.
 *   [USER] {texte_utilisateur}
 *   [CONTEXT] {extraits_récents}
 *
 * [SYSTEM] and [RULES] form the stable block (sent as the system part, cacheable); [USER] and
 * [CONTEXT] form the user message. When the whole is over budget (the total budget minus 30 %
 * reserved for the output), it is cut hard: context first (oldest turn first), then the system
 * text, then the user text, each cut by exact token count.
 */

/** Counts tokens for the budget; the counter (an encoder) is provided by the wiring. */
export interface TokenCounter {
  /** Exact token count (loads the encoder). */
  count(text: string): number;
  /** True when `text` has at most `max` tokens; loads the encoder only if bytes exceed `max`. */
  fits(text: string, max: number): boolean;
  /** The longest prefix of `text` with at most `max` tokens. */
  cut(text: string, max: number): string;
}

export const RULES_FR = 'Réponds en français, concis (2-3 phrases). Évite politique, santé, argent, données personnelles.';

/** Share of the total budget kept for the model's output. */
const OUTPUT_RESERVE = 0.3;

export interface Turn {
  role: 'user' | 'assistant';
  text: string;
}

export interface PromptParts {
  system: string;
  user: string;
  context: Turn[];
  lang?: string;
}

export interface BuiltPrompt {
  /** [SYSTEM] + [RULES]. */
  system: string;
  /** [USER] + [CONTEXT]. */
  user: string;
  /** Whole prompt as one string (what was counted). */
  text: string;
  /** Prompt budget applied (70 % of the total). */
  budget: number;
  /** What was cut to fit: 'context' | 'system' | 'user'. */
  cut: string[];
}

/** The rules line; the language follows `lang` (the spec's text is French). */
function rulesFor(lang = 'fr'): string {
  return lang === 'fr' ? RULES_FR : RULES_FR.replace('en français', `dans la langue « ${lang} »`);
}

function contextLine(turns: Turn[]): string {
  return turns.map((t) => `${t.role === 'user' ? 'Utilisateur' : 'Skull'}: ${t.text}`).join(' | ');
}

function assemble(system: string, rules: string, user: string, turns: Turn[]): { system: string; user: string } {
  return {
    system: `[SYSTEM] ${system}\n[RULES] ${rules}`,
    user: `[USER] ${user}\n[CONTEXT] ${contextLine(turns)}`.trimEnd(),
  };
}

/** Prompt budget (tokens) for a total budget: 70 % of it, the rest is the output's. */
export function promptBudget(totalTokens: number): number {
  return Math.floor(totalTokens * (1 - OUTPUT_RESERVE));
}

export function buildPrompt(parts: PromptParts, totalTokens: number, tokens: TokenCounter): BuiltPrompt {
  const budget = promptBudget(totalTokens);
  const rules = rulesFor(parts.lang);
  let system = parts.system.trim();
  let user = parts.user.trim();
  let turns = [...parts.context];
  const cut: string[] = [];
  const whole = () => {
    const a = assemble(system, rules, user, turns);
    return { ...a, text: `${a.system}\n${a.user}` };
  };
  let built = whole();
  // Counted once here (then again only after a cut): every turn builds a prompt, and nearly
  // every prompt fits.
  let fits = tokens.fits(built.text, budget);
  if (fits) return { ...built, budget, cut };
  while (turns.length > 0 && !fits) {
    turns = turns.slice(1);
    if (!cut.includes('context')) cut.push('context');
    built = whole();
    fits = tokens.fits(built.text, budget);
  }
  const systemRoom = () => budget - (tokens.count(built.text) - tokens.count(system));
  if (!fits && systemRoom() > 0) {
    // Everything but the system text fits; it gets what is left. Token counts of joined strings
    // are not quite additive, so shrink by a few tokens until the whole fits.
    const full = system;
    let room = systemRoom();
    do {
      system = tokens.cut(full, room);
      built = whole();
      room -= 2;
    } while (room > 0 && !tokens.fits(built.text, budget));
    cut.push('system');
  }
  if (!tokens.fits(built.text, budget)) {
    const full = user;
    let room = budget - (tokens.count(built.text) - tokens.count(user));
    do {
      user = tokens.cut(full, room);
      built = whole();
      room -= 2;
    } while (room > 0 && !tokens.fits(built.text, budget));
    cut.push('user');
  }
  return { ...built, budget, cut };
}

/** Turns of context kept for a model: 2 user + 2 replies for the larger model, 1/1 for nano. */
export function contextTurnsFor(model: string): number {
  return /nano/i.test(model) ? 1 : 2;
}

/** Keeps the last `pairs` user turns and the replies that follow them. */
export function trimHistory(history: Turn[], pairs: number): Turn[] {
  let users = 0;
  let i = history.length;
  while (i > 0) {
    i--;
    if (history[i]!.role === 'user') users++;
    if (users === pairs) return history.slice(i);
  }
  return history.slice();
}

export const BUILTIN_PROMPT = 'Tu es Skull, un crâne joyeux et poli, à l’humour léger. Tu réponds en deux ou trois phrases courtes, faciles à dire à voix haute.';

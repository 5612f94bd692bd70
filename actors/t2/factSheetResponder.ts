import type { Fact, Subject } from './subjects.js';
import { classify, indexSheet, type Intent, type SheetIndex } from './questionMatcher.js';

/**
 * The offline interlocutor (text mode, no GEMINI_API_KEY): answers from the subject's fact sheet,
 * deterministically, obeying the §3 rules by construction — the one fact the question asks (rule 5,
 * actors/t2/questionMatcher.ts), the fact's own 15–25-word answer (rule 4), no question back
 * (rule 7). A fact already given comes back only when asked again; a question the sheet cannot
 * answer gets a polite « je n'ai pas cette information »; a vague one a brief answer that adds
 * nothing (rule 6). A greeting is greeted back with an invitation to ask, a thank-you or goodbye
 * is closed — without the formulas rule 10 bans.
 */

export const VAGUE_ANSWER = 'Je peux vous renseigner sur ce point précis, mais il faut me dire exactement ce que vous voulez savoir.';
export const GREETING_ANSWER = 'Bonjour, oui, c’est bien ici, je vous écoute : posez-moi vos questions et je vous renseignerai de mon mieux.';
export const CLOSING_ANSWER = 'Je vous en prie, c’est moi qui vous remercie pour votre appel, au revoir et à bientôt peut-être.';
export const NO_INFORMATION_ANSWER = 'Je suis désolé, je n’ai pas cette information sous la main, je ne peux pas vous répondre sur ce point.';

const MAX_WORDS = 25;

export interface FactSheetSubject {
  factSheet: Fact[];
  /** The subject's title, role, instructions and context: words every fact shares. */
  background?: string;
}

export function backgroundOf(subject: Pick<Subject, 'titre' | 'role' | 'consigne' | 'contexte'>): string {
  return [subject.titre, subject.role, subject.consigne, subject.contexte].join(' ');
}

export class FactSheetResponder {
  private readonly index: SheetIndex;
  /** Facts already given in this dialogue. */
  private readonly given = new Set<Fact>();
  private greeted = false;

  constructor(subject: FactSheetSubject) {
    this.index = indexSheet(subject.factSheet, subject.background);
  }

  /** What the question asks, given the facts answered so far (no state change). */
  intent(question: string): Intent {
    return classify(this.index, question, this.given);
  }

  /** Replays an earlier reply of this dialogue (the offline provider is stateless: it gets the history). */
  remember(reply: string): void {
    const fact = this.index.facts.find((f) => reply.includes(f.answer));
    if (fact) this.given.add(fact);
    if (reply.startsWith('Bonjour')) this.greeted = true;
  }

  answer(question: string): string {
    const intent = this.intent(question);
    switch (intent.kind) {
      case 'fact': {
        this.given.add(intent.fact);
        // « Bonjour, combien coûte… » : greeted back first when the answer stays within the length rule.
        const greet = !this.greeted && /\b(?:bonjour|bonsoir)\b/i.test(question) && wordCount(intent.fact.answer) < MAX_WORDS;
        this.greeted ||= greet;
        return greet ? `Bonjour. ${intent.fact.answer}` : intent.fact.answer;
      }
      case 'greeting':
        this.greeted = true;
        return GREETING_ANSWER;
      case 'closing':
        return CLOSING_ANSWER;
      case 'none':
        return NO_INFORMATION_ANSWER;
      case 'vague':
        return VAGUE_ANSWER;
    }
  }
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

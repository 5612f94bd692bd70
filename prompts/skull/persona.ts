import type { ChatMessage } from '../chatMessage.js';

/**
 * The Skull's offline persona script: what the offline provider answers (purpose `skull`) when no
 * API key is configured. Deterministic: the reply depends only on the user's text (a keyword
 * table, then a stable pick among generic lines). It is a script, not a model, and says so when
 * asked who it is.
 */
interface Line {
  when: RegExp;
  say: string;
}

const SCRIPT: Line[] = [
  { when: /\b(bonjour|salut|coucou|hello|bonsoir)\b/i, say: 'Salut ! Je suis Skull, ton crâne loquace. Que puis-je faire pour toi ?' },
  { when: /\b(pr[ée]sente|qui es[- ]tu|t'es qui)\b/i, say: 'Je suis Skull, un crâne bavard qui répond hors ligne avec un petit script. Pose-moi une devinette ou demande une blague !' },
  { when: /\bblague\b/i, say: 'Pourquoi les squelettes ne se battent-ils jamais ? Ils n’ont pas le cran. Ha ha !' },
  { when: /\bdevinette\b/i, say: 'Qu’est-ce qui a des dents mais ne mord jamais ? Un peigne !' },
  { when: /\b(heure|temps|m[ée]t[ée]o)\b/i, say: 'Je n’ai ni montre ni fenêtre, hélas. Mais il fait toujours beau dans ma boîte crânienne !' },
  { when: /\b(merci|bravo)\b/i, say: 'Avec plaisir ! Un crâne poli en vaut deux.' },
  { when: /\b(au revoir|bonne nuit|salut !|ciao)\b/i, say: 'À bientôt ! Je reste là, bien sagement sur mon étagère.' },
];

const GENERIC = [
  'Bonne question ! Je suis un crâne hors ligne, alors je réponds court : demande-moi plutôt une blague ou une devinette.',
  'Hmm, mon cerveau est parti en vacances. Veux-tu une devinette à la place ?',
  'Je n’ai que des os et un petit script hors ligne. Essaie « raconte une blague » !',
];

function stableIndex(text: string, n: number): number {
  let h = 0;
  for (const ch of text) h = (h * 31 + ch.codePointAt(0)!) >>> 0;
  return h % n;
}

function personaReply(userText: string): string {
  for (const line of SCRIPT) if (line.when.test(userText)) return line.say;
  return GENERIC[stableIndex(userText, GENERIC.length)]!;
}

/** The offline responder: reads the user's text from the hints the skull chart passes. */
export function skullOfflineResponder(req: { messages: readonly ChatMessage[]; offlineHints?: Record<string, unknown> }): string {
  const hinted = req.offlineHints?.user;
  const user = typeof hinted === 'string' ? hinted : (req.messages.at(-1)?.content ?? '');
  return personaReply(user);
}

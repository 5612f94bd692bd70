import { limitSentences, mayHoldUrl } from './sentences.js';

/**
 * Post-processing of a model reply before it goes to TTS (docs/skull.md#what-happens-to-an-input, step 8): trim, strip
 * markup and code nobody asked for, normalise French punctuation, keep at most N sentences.
 * Pure functions: no I/O, no state.
 */

export const NNBSP = '\u202f';

const URLISH = /(?:https?:\/\/|www\.)\S*[^\s.,;:!?…»)"']|[\w.+-]+@[\w-]+(?:\.[\w-]+)+/gi;

/** Did the user ask for code? Then code blocks are kept (as plain text), not dropped. */
function asksForCode(userText: string): boolean {
  return /\b(code|script|programme|fonction|commande|python|javascript|typescript|bash|sql)\b/i.test(userText);
}

/**
 * Removes Markdown/HTML markup; drops fenced code unless `keepCode`. A pass whose pattern needs a
 * character the text lacks is skipped (it could not match): most replies are plain sentences, and
 * this runs on every Skull turn.
 */
export function stripMarkup(text: string, keepCode = false): string {
  let out = text;
  if (out.includes('`')) {
    out = out.replace(/```[\w-]*\n?([\s\S]*?)(?:```|$)/g, (_m, body: string) => (keepCode ? ` ${body.trim()} ` : ' '));
    out = out.replace(/`([^`]*)`/g, '$1');
  }
  if (out.includes('<')) out = out.replace(/<\/?[a-zA-Z][^>]*>/g, ' ');
  if (out.includes('](')) out = out.replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\[([^\]]+)\]\(([^)]*)\)/g, '$1');
  if (out.includes('#')) out = out.replace(/^\s{0,3}#{1,6}\s+/gm, '');
  if (out.includes('>')) out = out.replace(/^\s*>\s?/gm, '');
  out = out.replace(/^\s*(?:[-*+•]|\d+[.)])\s+/gm, '');
  if (out.includes('*') || out.includes('_')) {
    out = out.replace(/(\*\*|__)(.+?)\1/g, '$2').replace(/(^|[\s(])[*_]([^*_\n]+)[*_](?=[\s).,;:!?]|$)/g, '$1$2');
  }
  if (out.includes('---') || out.includes('***') || out.includes('___')) out = out.replace(/^\s*(?:-{3,}|\*{3,}|_{3,})\s*$/gm, '');
  return out;
}

/** Applies `fn` to the parts of `text` outside URLs and e-mail addresses. */
function outsideUrls(text: string, fn: (part: string) => string): string {
  if (!mayHoldUrl(text)) return fn(text);
  let out = '';
  let last = 0;
  for (const m of text.matchAll(URLISH)) {
    out += fn(text.slice(last, m.index)) + m[0];
    last = m.index + m[0].length;
  }
  return out + fn(text.slice(last));
}

/**
 * French typography: a narrow no-break space (U+202F) before ; : ! ? and inside « guillemets »;
 * straight or curly double quotes become guillemets; "..." becomes "…"; no space before , or .
 * Times ("12:30") and URLs are left alone. As in stripMarkup, a pass whose pattern needs a
 * character the text lacks is skipped: it runs on every Skull reply.
 */
export function frenchPunctuation(text: string): string {
  return outsideUrls(text, (part) => {
    let s = part.includes('...') ? part.replace(/\.{3,}/g, '…') : part;
    s = s.replace(/[ \t\u00a0\u202f]+([,.])(?!\d)/g, '$1');
    if (s.includes('"')) {
      // Pair straight quotes left to right; curly ones are unambiguous.
      let open = true;
      s = s.replace(/"/g, () => {
        const q = open ? '«' : '»';
        open = !open;
        return q;
      });
    }
    if (s.includes('“') || s.includes('”')) s = s.replace(/“/g, '«').replace(/”/g, '»');
    if (s.includes('«') || s.includes('»')) s = s.replace(/«[ \t\u00a0\u202f]*/g, `«${NNBSP}`).replace(/[ \t\u00a0\u202f]*»/g, `${NNBSP}»`);
    // Before ; ! ? always; before : unless between digits (a time or a ratio).
    s = s.replace(/[ \t\u00a0\u202f]*([;!?]+)/g, (_m, p: string, offset: number) => (offset === 0 ? p : `${NNBSP}${p}`));
    if (s.includes(':')) s = s.replace(/(\d)?[ \t\u00a0\u202f]*:(?!\d)/g, (m, d: string | undefined, offset: number) => (offset === 0 && !d ? ':' : `${d ?? ''}${NNBSP}:`));
    if (s.includes(NNBSP)) s = s.replace(/\u202f([!?])\u202f([!?])/g, `${NNBSP}$1$2`);
    return s;
  });
}

export interface PostProcessOptions {
  maxSentences: number;
  /** The user's text: decides whether code was asked for. */
  userText?: string;
}

/** The whole pipeline. Returns '' when nothing speakable is left (the caller retries or apologises). */
export function postProcess(reply: string, opts: PostProcessOptions): string {
  const keepCode = opts.userText ? asksForCode(opts.userText) : false;
  let text = stripMarkup(reply, keepCode).replace(/\s+/g, ' ').trim();
  if (!/[\p{L}\p{N}]/u.test(text)) return '';
  text = limitSentences(text, opts.maxSentences);
  return frenchPunctuation(text).replace(/\s+(?=[.,])/g, '').trim();
}

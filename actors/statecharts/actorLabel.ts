/**
 * A readable name for a conversation on /inspect, from its machine, its systemId and its
 * (redacted) context: `t2live · candidate user-1234ab12 · Inscription club de sport`,
 * `skull · device salon`, `chat · question 3f2a · « Combien de temps… »`. Conversation UUIDs are cut
 * to four characters: they only tell two actors apart on one screen. A candidate id is what the
 * admin looks for (the `sub` of the candidate's token, as in « Mes séances » and the logs), so it
 * is shown whole, up to CANDIDATE_MAX characters; a longer one keeps its start and its end.
 */

const QUOTE_MAX = 40;
const CANDIDATE_MAX = 40;

function obj(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}

/** The part after the kind prefix (`chat:<uuid>` → first 4 characters of the uuid). */
function shortId(systemId: string): string {
  const tail = systemId.includes(':') ? systemId.slice(systemId.indexOf(':') + 1) : systemId;
  return /^[0-9a-f]{8}-[0-9a-f]{4}-/i.test(tail) ? tail.slice(0, 4) : tail;
}

/** A candidate id, whole unless very long: then its first and last characters around « … ». */
function shortCandidate(id: string): string {
  const chars = [...id];
  if (chars.length <= CANDIDATE_MAX) return id;
  const keep = Math.floor((CANDIDATE_MAX - 1) / 2);
  return `${chars.slice(0, keep).join('')}…${chars.slice(-keep).join('')}`;
}

function quote(text: string): string {
  const one = text.replace(/\s+/g, ' ');
  return `« ${one.length > QUOTE_MAX ? `${one.slice(0, QUOTE_MAX - 1)}…` : one} »`;
}

export function actorLabel(kind: string, systemId: string, context: unknown): string {
  const c = obj(context);
  const parts = [kind];
  switch (kind) {
    case 't2live': {
      const cand = str(c.candidateId);
      parts.push(cand ? `candidate ${shortCandidate(cand)}` : `session ${shortId(systemId)}`);
      const titre = str(obj(c.subject).titre);
      parts.push(titre ?? str(c.sujetId) ?? '');
      break;
    }
    case 'skull':
      parts.push(`device ${str(c.deviceId) ?? shortId(systemId)}`);
      break;
    case 'chat': {
      parts.push(`question ${shortId(systemId)}`);
      const q = str(c.question);
      if (q) parts.push(quote(q));
      break;
    }
    case 'correction': {
      const p = obj(c.production);
      parts.push(str(p.tache) ?? '', shortId(systemId));
      break;
    }
    default:
      parts.push(shortId(systemId));
  }
  return parts.filter(Boolean).join(' · ');
}

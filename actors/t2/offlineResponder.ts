import { z } from 'zod';
import { registerOfflineResponder, type OfflineResponder } from '../llm/offline.js';
import { FactSheetResponder } from './factSheetResponder.js';
import { factSchema } from './subjects.js';

/**
 * The T2 responder of the offline provider (purpose `t2`): the interlocutor answers the last
 * candidate message from the fact sheet passed in `offlineHints`. Pure function of the request:
 * the earlier replies of the dialogue say which facts were already given.
 */
const hintsSchema = z.object({ factSheet: z.array(factSchema), background: z.string().max(10_000).optional() });

export const t2OfflineResponder: OfflineResponder = (req) => {
  const hints = hintsSchema.safeParse(req.offlineHints ?? {});
  const responder = new FactSheetResponder(hints.success ? hints.data : { factSheet: [] });
  const messages = [...req.messages];
  const lastUser = messages.map((m) => m.role).lastIndexOf('user');
  for (const m of messages.slice(0, Math.max(lastUser, 0))) if (m.role === 'assistant') responder.remember(m.content);
  return responder.answer(lastUser >= 0 ? messages[lastUser]!.content : '');
};

export function registerT2OfflineResponder(): () => void {
  return registerOfflineResponder('t2', t2OfflineResponder);
}

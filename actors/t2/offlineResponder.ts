import { z } from 'zod';
import { registerOfflineResponder, type OfflineResponder } from '../llm/offline.js';
import { FactSheetResponder } from './factSheetResponder.js';
import { factSchema } from './subjects.js';

/**
 * The T2 responder of the offline provider (purpose `t2`): the interlocutor answers the last
 * candidate message from the fact sheet passed in `offlineHints`. Pure function of the request.
 */
const hintsSchema = z.object({ factSheet: z.array(factSchema) });

export const t2OfflineResponder: OfflineResponder = (req) => {
  const hints = hintsSchema.safeParse(req.offlineHints ?? {});
  const question = [...req.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  return new FactSheetResponder({ factSheet: hints.success ? hints.data.factSheet : [] }).answer(question);
};

export function registerT2OfflineResponder(): () => void {
  return registerOfflineResponder('t2', t2OfflineResponder);
}

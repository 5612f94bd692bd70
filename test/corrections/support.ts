import { mkdtempSync, rmSync } from 'node:fs';
import type { SimulatedClock } from 'xstate';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPalabreConfig } from '../../actors/palabreConfig.js';
import type { PalabreConfig } from '../../actors/palabreConfig.js';
import { silentLogger } from '../../core/log.js';
import { createMetrics } from '../../core/metrics.js';
import { Runtime } from '../../core/runtime.js';
import { openStore } from '../../core/store/db.js';
import type { AppContext } from '../../core/surfaceContract.js';
import { createProviders } from '../../actors/llm/providers.js';
import { coreServicesFor } from '../support/coreServices.js';
import type { WrittenModelOutput } from '../../prompts/corrections/modelOutput.js';

/** A real AppContext on a temp SQLite file; `env` adds configuration (e.g. the wire fake's URL). */
export function makeContext(env: Record<string, string> = {}, opts: { clock?: SimulatedClock } = {}): { ctx: AppContext<PalabreConfig>; config: PalabreConfig; dir: string; close(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'palabre-corr-'));
  // GRAMMALECTE=off unless a test asks for it: one Python sidecar per test context would cost a
  // second of CPU each; the HTTP and Grammalecte tests run the real engine.
  const config = loadPalabreConfig({ env: { DATA_DIR: dir, JWT_SECRET: 'corrections-test-secret-0123456789', LLM_MAX_RETRIES: '0', GRAMMALECTE: 'off', ...env }, dotenvPath: null });
  const logger = silentLogger();
  const metrics = createMetrics({ defaults: false });
  const db = openStore({ path: join(dir, 'palabre.db') });
  const runtime = new Runtime(opts.clock ? { clock: opts.clock } : {});
  const ctx: AppContext<PalabreConfig> = {
    config, logger, db, runtime, metrics,
    ...coreServicesFor(db, config, logger),
    providers: createProviders(config, { logger, metrics }),
    publicUrl: 'http://127.0.0.1',
  };
  return {
    ctx, config, dir,
    close() {
      runtime.shutdown();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const T1_CONSIGNE = 'Vous ne pouvez pas aller à une réunion de travail. Écrivez un message à votre collègue pour l\'informer et lui demander de prendre des notes.';
export const T1_TEXTE = `Bonjour Marc,
Je ne pourrai pas venir à la réunion de demain matin car mon fils est malade et je dois l'emmener chez le médecin. Est-ce que tu pourrais prendre des notes pour moi ? Je sais pas encore si je serai là jeudi. J'aimerais surtout savoir ce que la directrice va dire sur le nouveau projet et sur le calendrier. Je dois aussi checker les chiffres du budget avant vendredi, donc envoie-moi le document s'il te plaît.
Je te remercie beaucoup, je te revaudrai ça.
À jeudi,
Nadia`;

/** A valid written model answer for T1_TEXTE (one error also found by a detector, one only the model finds). */
export function validWrittenAnswer(): WrittenModelOutput {
  return {
    criteres: {
      adequation_tache: { score: 15, justification: 'Message complet et adapté au destinataire.' },
      coherence_cohesion: { score: 14, justification: 'Idées bien enchaînées.' },
      competence_lexicale: { score: 13, justification: 'Lexique courant, un anglicisme.' },
      competence_grammaticale: { score: 12, justification: 'Une négation incomplète.' },
    },
    erreurs: [
      { code: 'negation_incomplete', critere: 'competence_grammaticale', description: null, extrait: 'Je sais pas', correction: 'Je ne sais pas' },
      { code: 'autre', critere: 'competence_lexicale', description: 'Expression familière « je te revaudrai ça » dans un message professionnel', extrait: 'je te revaudrai ça', correction: 'je vous en serai reconnaissante' },
    ],
    points_forts: ['Consigne respectée', 'Formules d\'appel et de clôture'],
    conseils: ['Complétez vos négations.', 'Évitez les anglicismes.', 'Variez le lexique.'],
  };
}

/** An English letter the trigrams alone would call close to French (French within 15 % of the best language) scores 0.91 of English). */
export const ENGLISH_LETTER = `Dear Madam,
In my opinion, the new parking regulation in our residence creates more problems than solutions. The residents who return late from work cannot find a place, and the visitors of elderly people must park far away. I propose an information meeting with the management and the residents before the end of the month, to discuss a more flexible organisation.
Sincerely,
Paulo Mendes`;

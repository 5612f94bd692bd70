import type { WrittenPracticeDeps, WrittenProductionDetail, WrittenProductionSummary } from '../../transports/http/eePracticeHttp.js';
import type { CorrectionService } from '../../machines/correctionContract.js';
import { consigneText, EE_MIN_WORDS_TO_GRADE, EE_SUBJECTS, eeTask } from './eeSubjects.js';
import { countWords } from './production.js';
import type { CorrectionStore, StoredProduction } from './correctionsStore.js';

/**
 * What the written-practice routes need from the corrections surface: the subjects with the
 * instruction graded, the word count and floor, the grading, and the candidate's stored written
 * productions (read back for « Mes séances » and the report's stable URL).
 */

function text(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function summary(p: StoredProduction): WrittenProductionSummary {
  const r = p.report as { mots?: unknown; scoreGlobal?: unknown; nclc?: { niveau?: unknown }; detectorsOnly?: unknown };
  return {
    id: p.id,
    tache: p.tache,
    sujet: { id: text(p.meta?.sujet), titre: text(p.meta?.titre) },
    createdAt: p.createdAt,
    mots: typeof r.mots === 'number' ? r.mots : null,
    scoreGlobal: typeof r.scoreGlobal === 'number' ? r.scoreGlobal : null,
    nclc: text(r.nclc?.niveau),
    detectorsOnly: r.detectorsOnly === true,
  };
}

function detail(p: StoredProduction): WrittenProductionDetail {
  return { ...summary(p), consigne: p.consigne, texte: p.texte ?? '', report: p.report };
}

export function writtenPracticeDeps(service: Pick<CorrectionService, 'correctWritten'>, store: Pick<CorrectionStore, 'listWritten' | 'getOwn'>): WrittenPracticeDeps {
  const subjects = new Map(EE_SUBJECTS.map((s) => [s.id, { id: s.id, tache: s.tache, titre: s.titre, consigne: consigneText(s), mots: eeTask(s.tache).mots }]));
  return {
    subjects: { get: (id) => subjects.get(id) },
    countWords,
    minWords: EE_MIN_WORDS_TO_GRADE,
    grade: (req) => service.correctWritten(req),
    reads: {
      list: async (sub) => (await store.listWritten(sub)).map(summary),
      get: async (sub, id) => {
        const p = await store.getOwn(sub, id);
        // Only written productions have a page here; an oral one is read in « Mes séances ».
        return p && p.texte !== null ? detail(p) : undefined;
      },
    },
  };
}

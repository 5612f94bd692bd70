import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheDir } from '../../actors/corrections/cache.js';
import { Checker } from '../../actors/corrections/checker.js';
import { INSTALL_HINT, locateGrammalecte } from '../../actors/corrections/grammalecte/locate.js';
import { GRAMMALECTE_STOPPED, GrammalecteSidecar } from '../../actors/corrections/grammalecte/sidecar.js';
import { GrammalectePool } from '../../actors/corrections/grammalecte/pool.js';
import type { Production } from '../../prompts/corrections/tasks.js';
import { evaluate, loadEval } from './eval/evaluate.js';

/**
 * The real Grammalecte (installed by .ci/run with actors/corrections/grammalecte/install.sh) behind
 * the sidecar, then the sidecar's failure handling against small fake "python" programs.
 */
const found = locateGrammalecte(process.env.GRAMMALECTE_PATH, cacheDir());
if (!('path' in found) && process.env.CI === 'true') throw new Error(`CI=true and ${found.missing}: .ci/run should have run ${INSTALL_HINT}`);
const ee = (texte: string, tache: 'EE_T1' | 'EE_T2' | 'EE_T3' = 'EE_T2'): Production => ({ epreuve: 'EE', tache, consigne: 'Écrivez un article.', texte });

describe.skipIf(!('path' in found))(`Grammalecte sidecar (${'path' in found ? found.path : found.missing})`, () => {
  let sidecar: GrammalecteSidecar;
  let checker: Checker;
  beforeAll(async () => {
    sidecar = new GrammalecteSidecar({ python: process.env.GRAMMALECTE_PYTHON ?? 'python3', pythonPath: (found as { path: string }).path, timeoutMs: 20_000 });
    await sidecar.start();
    checker = new Checker(sidecar, undefined);
  }, 60_000);
  afterAll(() => sidecar.stop());

  it('answers with offsets in JavaScript string units, also after an emoji and on later lines', async () => {
    const text = 'Bonjour 😀 Paul,\nJe vais a la maison demain.';
    const r = await sidecar.check(text);
    const a = r.grammar.find((e) => e.type === 'conf');
    expect(a && text.slice(a.start, a.end)).toBe('a');
  });

  it('maps agreement, mood, auxiliary, homophones and elisions onto the taxonomy, quotes verbatim', async () => {
    const text = "Les fleurs sont belle.\nJe veux que tu viens avec nous.\nHier, j'ai allé au marché et ils nous on aidés.\nSi il pleut, nous restons.";
    const { findings, engine } = await checker.check(ee(text));
    expect(engine).toBe('grammalecte');
    const by = (code: string) => findings.filter((f) => f.code === code).map((f) => f.extrait);
    expect(by('accord_adjectif_nom')).toContain('belle');
    expect(by('subjonctif_absent')).toContain('viens');
    expect(findings.find((f) => f.code === 'autre')).toMatchObject({ critere: 'competence_grammaticale', description: expect.stringContaining('auxiliaire') });
    expect(by('confusion_homophones')).toContain('on');
    expect(findings.filter((f) => f.extrait === 'aidés')).toEqual([]); // a consequence of « on », not a second error
    expect(by('faute_orthographe_courante')).toContain('Si il');
    for (const f of findings) expect(text.slice(f.start, f.start + f.extrait.length)).toBe(f.extrait);
  });

  it('no false alarm on names, rare plurals, titles and complete negations of a native text', async () => {
    const text = "Un jardin sur le toit de la résidence\nDepuis le printemps, une vingtaine de résidants cultivent des tomates sur le toit. L'idée est venue de Wei, qui l'avait vue à Vancouver. Les travaux ne nous ont presque rien coûté et Reza ne nous a pas caché sa joie.";
    const { findings } = await checker.check(ee(text));
    expect(findings.filter((f) => f.code !== 'longueur_insuffisante')).toEqual([]);
  });

  it('agreement codes from the words involved, a/à after a verb or a plural noun, accent slips as spelling', async () => {
    const text = "Mes cousine viennent. Les rideaux bleu sont beaux. C'est le moment préféré de mon petite sœur. Ton camionnette est là. La nouvel équipe commence.\nNous sommes allé au marché. Les routes étaient gelé. Je dois rester a la maison. Il faut se lever a heures fixes. Depuis notre arrivé, tout va bien.";
    const { findings } = await checker.check(ee(text));
    const at = (quote: string) => findings.filter((f) => f.extrait === quote || f.extrait.startsWith(`${quote} `)).map((f) => f.code);
    expect(at('cousine')).toEqual(['nombre_incorrect']);
    expect(at('bleu')).toEqual(['accord_adjectif_nom']);
    expect(at('mon')).toEqual(['accord_determinant_nom']);
    expect(findings.filter((f) => f.extrait === 'petite')).toEqual([]);
    expect(at('Ton')).toEqual(['accord_determinant_nom']);
    expect(at('nouvel')).toEqual(['accord_adjectif_nom']);
    expect(at('allé')).toEqual(['accord_participe_passe']);
    expect(at('gelé')).toEqual(['accord_adjectif_nom']);
    const aFindings = findings.filter((f) => f.code === 'confusion_homophones' && /\ba$/.test(f.extrait));
    expect(aFindings.length).toBe(2);
    expect(findings.find((f) => f.extrait.endsWith('arrivé'))?.code).toBe('faute_orthographe_courante');
    for (const f of findings) expect(text.slice(f.start, f.start + f.extrait.length)).toBe(f.extrait);
  });

  it('no false alarm on first names opening a sentence, « ne … que », « personne ne » and correct « a » / « à »', async () => {
    const text = "Un souper entre amis\nAminata et moi organisons un souper. Oksana viendra aussi. Kwame apporte du cidre. Il n'y aura que des amis proches. Personne ne sera en retard. Il y a à manger pour dix, et qui a envie d'aider peut venir tôt. Le dîner a lieu à 19 h. Ce n'est qu'à ce prix que la fête sera réussie.";
    const { findings } = await checker.check(ee(text));
    expect(findings.filter((f) => f.code !== 'longueur_insuffisante')).toEqual([]);
  });

  it('an attribute that disagrees with its subject, and the indicative after a subjunctive trigger (copula.ts, subjunctive.ts)', async () => {
    const text = "La cuisine est trop petit et la salle de bains est sombre. Le parc reste ouvert, mais la piscine est fermé depuis lundi. C'est la saison la plus chargé de l'année. Il faut que mon frère prend le train. Je voudrais que vous faites attention. Bien que la ville a des problèmes, elle est belle.";
    const { findings } = await checker.check(ee(text));
    const codeOf = (quote: string) => findings.filter((f) => f.extrait === quote).map((f) => f.code);
    expect(codeOf('petit')).toEqual(['accord_adjectif_nom']);
    expect(codeOf('fermé')).toEqual(['accord_adjectif_nom']);
    expect(codeOf('chargé')).toEqual(['accord_adjectif_nom']);
    expect(codeOf('prend')).toEqual(['subjonctif_absent']);
    expect(codeOf('faites')).toEqual(['subjonctif_absent']);
    expect(codeOf('a')).toEqual(['subjonctif_absent']);
    expect(codeOf('sombre')).toEqual([]);
    expect(codeOf('ouvert')).toEqual([]);
    for (const f of findings) expect(text.slice(f.start, f.start + f.extrait.length)).toBe(f.extrait);
  });

  it('« a » before an infinitive after an elided verb or an indefinite noun is « à », not a missing participle', async () => {
    const text = "Je voudrais t'inviter a dîner samedi. Apportez une salade a partager. Mon voisin a réparer la clôture hier.";
    const { findings } = await checker.check(ee(text));
    expect(findings.filter((f) => f.extrait === 'a' && f.start < text.indexOf('Mon')).map((f) => f.code)).toEqual(['confusion_homophones', 'confusion_homophones']);
    expect(findings.filter((f) => f.extrait === 'dîner' || f.extrait === 'partager')).toEqual([]);
    expect(findings.find((f) => f.extrait === 'réparer')?.code).toBe('autre'); // an object follows: a passé composé missing its participle
  });

  it('« a » before a place or a feast inside a sentence is « à »; not after a pronoun, a name or a word that is not French', async () => {
    const text = "J'habite a Winnipeg depuis deux ans et ma sœur travaille a Calgary. Nous rentrons toujours a Noël. Il a Netflix chez lui et Paul a Marie comme voisine. Le modèle Software as a Service convient.";
    const { findings } = await checker.check(ee(text));
    const aAt = findings.filter((f) => f.extrait === 'a' && f.code === 'confusion_homophones').map((f) => text.slice(f.start, f.start + 12));
    expect(aAt).toEqual(['a Winnipeg d', 'a Calgary. N', 'a Noël. Il a']);
  });

  it('no attribute or mood false alarm on coordinated subjects, collective complements, « à ce que » and forms both moods share', async () => {
    const text = "Mon frère et ma sœur sont contents. L'ensemble des dossiers sont complets. La plupart des gens sont prêts. Je tiens à ce que je disais hier. Il faut que les enfants mangent et qu'ils prennent l'air. Je pense que la ville est belle. Elle est fort aimable et ils sont bien installés. La réunion la plus utile a eu lieu mardi.";
    const { findings } = await checker.check(ee(text));
    expect(findings.filter((f) => f.detecteur === 'grammalecte:attribut' || f.detecteur === 'grammalecte:subjonctif')).toEqual([]);
    // A plural noun inside a complement is not the subject of « a »; a capitalised word inside a sentence is a name or a title.
    const prose = "Le choix de ces couleurs a pour but de guider le regard. Nous lisons le magazine Belles Histoires chaque mois. Dans ce titre “Nouvelle saison au théâtre”, rien ne manque.";
    const other = await checker.check(ee(prose));
    expect(other.findings.filter((f) => f.code === 'confusion_homophones' || f.detecteur === 'grammalecte:gn')).toEqual([]);
  });

  it('spoken transcripts: writing-only rules (capitals, spelling, elisions) stay off', async () => {
    const oral: Production = { epreuve: 'EO', tache: 'EO_T2', consigne: 'x', transcript: [{ speaker: 'candidate', text: 'les enfants joue dehors. si il fait beau on sort avec nos amis francais' }] };
    const { findings } = await checker.check(oral);
    expect(findings.map((f) => f.code)).toContain('accord_sujet_verbe');
    expect(findings.map((f) => f.code)).not.toContain('faute_orthographe_courante');
    expect(findings.map((f) => f.code)).not.toContain('majuscules_incorrectes');
  });

  it('tuning set (tune + the spent held-out): precision ≥ 0.9, recall ≥ 0.7, no false alarm on the natives, scores follow the density', async () => {
    const r = await evaluate(loadEval('tuning'), checker, { log: () => undefined });
    expect(r.strict.tp / (r.strict.tp + r.strict.fp)).toBeGreaterThanOrEqual(0.9);
    expect(r.strict.tp / (r.strict.tp + r.strict.fn)).toBeGreaterThanOrEqual(0.7);
    expect(r.nativeFalseAlarms).toBe(0);
    // The written score also rewards the range of the vocabulary and complex sentences, so it
    // follows the error density a little less closely than a density-only score would.
    expect(r.spearman).toBeLessThanOrEqual(-0.65);
    expect(r.gap).toBeGreaterThanOrEqual(3);
  }, 60_000);

  it('a lone surrogate (a cut emoji) or U+FFFD neither fails Grammalecte nor hides its sentence; offsets kept', async () => {
    for (const text of ['Salut \uD83D les enfant joue dehors.', 'Salut \uDE00 les enfant joue dehors.', 'Salut \uFFFD les enfant joue dehors.']) {
      const r = await sidecar.check(text);
      expect(r.grammar.map((g) => text.slice(g.start, g.end))).toContain('enfant');
    }
  });

  it('restarts after a crash: the next check is answered by a new process', async () => {
    const pid = sidecar.pid();
    process.kill(pid!, 'SIGKILL');
    await expect.poll(() => sidecar.pid() !== undefined && sidecar.pid() !== pid && sidecar.state === 'ready', { timeout: 30_000, interval: 50 }).toBe(true);
    expect(sidecar.restarts).toBe(1);
    expect((await sidecar.check('Les enfant joue.')).grammar.length).toBeGreaterThan(0);
  }, 40_000);
});

describe('sidecar failures (fake drivers)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'palabre-fake-py-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** A stand-in for python3: ignores the driver path, speaks (or fails to speak) the protocol. */
  const fake = (name: string, body: string) => {
    const p = join(dir, name);
    writeFileSync(p, `#!/bin/sh\n${body}\n`);
    chmodSync(p, 0o755);
    return p;
  };
  const READY = `echo '{"type":"ready","version":"fake","warmMs":1}'`;

  it('invalid output fails that request only (zod), the next one is still served', async () => {
    const python = fake('garbage', `${READY}\nn=0\nwhile read line; do n=$((n+1)); if [ $n -eq 1 ]; then echo '{"id":1,"grammar":[{"start":-4}]}'; else echo '{"id":2,"grammar":[],"spelling":[]}'; fi; done`);
    const s = new GrammalecteSidecar({ python, pythonPath: dir, timeoutMs: 5_000 });
    await s.start();
    await expect(s.check('a')).rejects.toThrow(/invalid answer/);
    await expect(s.check('b')).resolves.toEqual({ grammar: [], spelling: [] });
    await s.stop();
  });

  it('a stuck check times out, the process is replaced; waiting text past the memory bound fails fast; the checker falls back to the detectors and says why', async () => {
    const python = fake('stuck', `${READY}\nwhile read line; do sleep 30; done`);
    const s = new GrammalecteSidecar({ python, pythonPath: dir, timeoutMs: 300, maxQueuedChars: 20 });
    await s.start();
    const first = s.check('a');
    const second = s.check('b'.repeat(10));
    await expect(s.check('c'.repeat(11))).rejects.toThrow(/busy: 10 characters already waiting \(limit 20\)/);
    await expect(first).rejects.toThrow(/longer than 300 ms/);
    // The waiting one is written to the restarted process (stuck too, here): it fails on its own timeout.
    await expect(second).rejects.toThrow(/longer than 300 ms/);
    const checker = new Checker(s, undefined);
    const r = await checker.check(ee('Je sais pas.'));
    expect(r.engine).toBe('detectors');
    expect(r.grammalecteMissing).toMatch(/longer than 300 ms/);
    expect(r.findings.map((f) => f.code)).toContain('negation_incomplete');
    await s.stop();
  });

  /** Answers each request after `delay` seconds, in order, with no error found. */
  const slow = (name: string, delay: string) => fake(name, `${READY}\nwhile read line; do sleep ${delay}; id=\${line#\\{\\"id\\":}; id=\${id%%,*}; echo "{\\"id\\":$id,\\"grammar\\":[],\\"spelling\\":[]}"; done`);

  it('many requests at once all wait their turn: none refused, none timed out by the time spent waiting', async () => {
    // 40 requests × 0.1 s: the last waits ~4 s, twice the per-check limit, which counts from its write.
    const s = new GrammalecteSidecar({ python: slow('slow', '0.1'), pythonPath: dir, timeoutMs: 2_000 });
    await s.start();
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => s.check(`texte ${i}`)));
    expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    expect(s.restarts).toBe(0);
    await s.stop();
  }, 30_000);

  it('once stopping, a check rejects with a clear error instead of writing to the closed pipe; the one in flight is answered', async () => {
    const s = new GrammalecteSidecar({ python: slow('slow-stop', '0.2'), pythonPath: dir, timeoutMs: 5_000 });
    await s.start();
    const inFlight = s.check('avant');
    const stopping = s.stop();
    await expect(s.check('après')).rejects.toThrow(GRAMMALECTE_STOPPED);
    await expect(inFlight).resolves.toEqual({ grammar: [], spelling: [] });
    await stopping;
    expect(s.state).toBe('stopped');
    await expect(s.check('encore')).rejects.toThrow(GRAMMALECTE_STOPPED);
  }, 20_000);

  it('a pool spreads waiting requests over its processes and answers every one', async () => {
    const pool = new GrammalectePool({ python: slow('slow-pool', '0.05'), pythonPath: dir, timeoutMs: 2_000, size: 2 });
    await pool.start();
    await expect.poll(() => pool.pids().length, { timeout: 20_000, interval: 50 }).toBe(2);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => pool.check(`texte ${i}`)));
    expect(results).toHaveLength(20);
    expect(new Set(pool.pids()).size).toBe(2);
    await pool.stop();
    expect(pool.state).toBe('stopped');
    await expect(pool.check('après')).rejects.toThrow(GRAMMALECTE_STOPPED);
  }, 30_000);

  it('a process that cannot start does not hold productions through its restart pauses: checks fail at once', async () => {
    const python = fake('broken', 'echo "ModuleNotFoundError: No module named grammalecte" >&2; exit 1');
    const s = new GrammalecteSidecar({ python, pythonPath: dir, timeoutMs: 300 });
    await expect(s.start()).rejects.toThrow(/exited/);
    const check = s.check('texte');
    let failedAt: 'now' | 'later' = 'later';
    void check.catch(() => (failedAt = 'now'));
    // Rejected within the current turn of the event loop: no wait for the restart pause (0.5 s, doubling).
    await Promise.resolve();
    expect(failedAt).toBe('now');
    await expect(check).rejects.toThrow(/not ready \(failed: Grammalecte exited/);
    await s.stop();
  });

  it('a program that never says ready: start fails with the reason, the status says how to install', async () => {
    const python = fake('silent', 'echo "Traceback: No module named grammalecte" >&2; exit 1');
    const s = new GrammalecteSidecar({ python, pythonPath: dir, timeoutMs: 300 });
    await expect(s.start()).rejects.toThrow(/exited/);
    await s.stop();
    expect(new Checker(s, undefined).status()).toMatchObject({ engine: 'detectors', install: INSTALL_HINT });
    expect(new Checker(undefined, 'Grammalecte not found').status()).toMatchObject({ engine: 'detectors', reason: 'Grammalecte not found' });
  });
});

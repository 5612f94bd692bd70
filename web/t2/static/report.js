// The one renderer of a correction report, oral and written: the end of a live T2 session (live.js),
// « Mes séances » (sessions.js) and the written-practice pages (web/ee/static): criteria by their
// French names on /20, the global score with its NCLC level and what it means, justifications
// (with the figures behind them, folded, when the report has them), strengths, the three pieces of
// advice, each error with its quote highlighted in the transcript or the written text and its
// correction, and how the interlocutor kept the exam's rules.
// Internal references (spec sections, ticket ids) are removed: the candidate reads this.

const CRITERIA = {
  coherence_cohesion: 'Cohérence et cohésion',
  lexique: 'Étendue et maîtrise du lexique',
  morphosyntaxe: 'Maîtrise morphosyntaxique',
  phonologie: 'Phonologie',
  adequation_tache: 'Adéquation à la tâche',
  competence_lexicale: 'Compétence lexicale',
  competence_grammaticale: 'Compétence grammaticale',
  coherence: 'Cohérence et cohésion',
};

// What an NCLC level means for the candidate (Niveaux de compétence linguistique canadiens).
const NCLC_MEANING = {
  '10+': 'Niveau avancé : vous vous exprimez avec aisance et précision, même sur des sujets complexes. C’est le plus haut niveau mesuré.',
  9: 'Niveau avancé : vous communiquez de façon efficace et nuancée dans la plupart des situations.',
  8: 'Niveau intermédiaire avancé : vous communiquez avec aisance dans les situations courantes et dans des situations moins familières.',
  7: 'Niveau intermédiaire : vous vous débrouillez dans la plupart des situations courantes. C’est le minimum demandé par de nombreux programmes d’immigration (par exemple Entrée express, travailleurs qualifiés).',
  6: 'Niveau intermédiaire de base : vous échangez sur des sujets familiers, avec encore des hésitations et des erreurs qui gênent parfois.',
  5: 'Niveau intermédiaire de base : vous vous faites comprendre sur des sujets simples et familiers.',
  4: 'Niveau élémentaire : vous échangez des informations simples, avec de l’aide et des reformulations.',
  '<4': 'En dessous du niveau 4, le plus bas que mesure le test : continuez à vous entraîner sur des échanges simples.',
};

const END_REASONS = {
  candidate: 'vous avez terminé la séance',
  time: 'le temps était écoulé',
  idle: 'la séance est restée silencieuse trop longtemps',
  disconnected: 'la connexion a été perdue',
  interlocutor_lost: 'l’interlocuteur s’est interrompu',
  server_shutdown: 'le serveur a redémarré',
  replaced: 'une nouvelle séance a été ouverte',
};

/** Removes internal references: « (TD-08) », « §3 règle 10 — ». */
export function clean(text) {
  const s = String(text ?? '').replace(/\s*\((?:TD|ADR|SPEC)-\d+\)/g, '');
  const label = s.replace(/^(?:§\d+(?: règle \d+)?(?:, )?)+\s*—\s*/, '');
  // A label that lost its reference prefix starts a sentence: capitalise it.
  return (label !== s ? label.replace(/^\p{Ll}/u, (c) => c.toUpperCase()) : s).trim();
}

export function criterionName(id) {
  return CRITERIA[id] || clean(String(id).replace(/_/g, ' '));
}

export function endReasonText(reason) {
  return END_REASONS[reason] || '';
}

const fr = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 });
export const score20 = (n) => `${fr.format(n)} / 20`;

function el(tag, text, attrs = {}) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

function section(container, level, id, title) {
  const s = el('section', undefined, { 'aria-labelledby': id, class: 'report-part' });
  s.append(el(`h${level}`, title, { id }));
  container.append(s);
  return s;
}

/** A criterion's `details` (any JSON the grading attaches): the figures behind its justification. */
function detailsBlock(details) {
  if (details === undefined || details === null || details === '') return null;
  if (typeof details === 'object' && !Array.isArray(details) && !Object.keys(details).length) return null;
  const box = el('details', undefined, { class: 'report-details' });
  box.append(el('summary', 'Les chiffres derrière cette note'));
  const value = (v) => (typeof v === 'number' ? fr.format(v) : typeof v === 'boolean' ? (v ? 'oui' : 'non') : typeof v === 'string' ? clean(v) : JSON.stringify(v));
  if (Array.isArray(details)) {
    const ul = el('ul');
    for (const item of details) ul.append(el('li', value(item)));
    box.append(ul);
  } else if (typeof details === 'object') {
    const dl = el('dl');
    for (const [k, v] of Object.entries(details)) dl.append(el('dt', clean(k.replace(/_/g, ' '))), el('dd', value(v)));
    box.append(dl);
  } else box.append(el('p', value(details)));
  return box;
}

/** Finds `quote` in a candidate turn (exact, then ignoring case). */
function locate(turns, quote) {
  const q = String(quote || '').trim();
  if (!q) return undefined;
  for (const exact of [true, false]) {
    for (let i = 0; i < turns.length; i++) {
      if (turns[i].speaker !== 'candidate') continue;
      const at = exact ? turns[i].text.indexOf(q) : turns[i].text.toLowerCase().indexOf(q.toLowerCase());
      if (at >= 0) return { turn: i, at, length: q.length };
    }
  }
  return undefined;
}

/**
 * Draws `report` (the stored JSON) into `container`. `transcript`: turns [{speaker, text}] shown
 * with each error's quote highlighted, or `texte`: a written production (shown the same way, as
 * « Votre texte »); `level`: heading level of the report's sections.
 */
export function renderReport(container, { report: raw, transcript = [], texte, level = 3, idPrefix = 'rp' }) {
  container.replaceChildren();
  container.classList.add('t2-report');
  const report = raw && typeof raw === 'object' ? raw : {};
  const h = Math.min(6, level);
  const written = typeof texte === 'string';
  if (written) transcript = [{ speaker: 'candidate', text: texte }];

  const detectorsOnly = Boolean(report.detectorsOnly || report.source === 'detectors');
  if (detectorsOnly) {
    const box = el('div', undefined, { class: 'report-offline', role: 'note' });
    box.append(
      el('p', 'Correction automatique sans modèle de langue.'),
      el(
        'p',
        `Aucun modèle d’évaluation n’était disponible pour ${written ? 'cette production' : 'cette séance'} : les notes viennent de détecteurs automatiques qui repèrent des erreurs de grammaire et de vocabulaire connues. Elles sont indicatives. ${written ? 'La pertinence de vos idées' : 'La pertinence de vos questions, vos idées'} et la richesse de votre langue n’ont pas été évaluées : une erreur non repérée n’est pas une preuve que tout était juste.`,
      ),
    );
    container.append(box);
  }

  // Global score and NCLC level.
  const summary = section(container, h, `${idPrefix}-global`, 'Résultat');
  const dl = el('dl', undefined, { class: 'report-summary' });
  if (typeof report.scoreGlobal === 'number') dl.append(el('dt', 'Note globale'), el('dd', score20(report.scoreGlobal), { class: 'report-score' }));
  const niveau = report.nclc && report.nclc.niveau;
  if (niveau) {
    dl.append(el('dt', 'Niveau NCLC'), el('dd', String(niveau), { class: 'report-nclc' }));
  }
  if (dl.children.length) summary.append(dl);
  if (niveau && NCLC_MEANING[niveau]) summary.append(el('p', NCLC_MEANING[niveau], { class: 'report-nclc-meaning' }));
  if (detectorsOnly && dl.children.length) summary.append(el('p', 'Cette note et ce niveau sont une estimation des seuls détecteurs automatiques : ne les prenez pas pour un résultat d’examen.', { class: 'report-estimate' }));
  if (!dl.children.length) summary.append(el('p', `La note globale n’a pas été calculée pour ${written ? 'cette production' : 'cette séance'}.`));
  if (written && typeof report.mots === 'number') summary.append(el('p', `Votre texte compte ${report.mots} mot${report.mots > 1 ? 's' : ''}.`, { class: 'report-words' }));
  const phon = report.t2 && report.t2.phonologie;
  const criteres = report.criteres && typeof report.criteres === 'object' ? report.criteres : {};
  if (Object.keys(criteres).length) {
    summary.append(el('p', 'La note globale est la moyenne des critères évalués (chacun compte pour 25 %).', { class: 'hint' }));
  }

  // Criteria.
  if (Object.keys(criteres).length) {
    const part = section(container, h, `${idPrefix}-criteria`, 'Critères');
    const table = el('table', undefined, { class: 'report-criteria' });
    table.append(el('caption', 'Note et justification par critère'));
    const head = el('tr');
    head.append(el('th', 'Critère', { scope: 'col' }), el('th', 'Note', { scope: 'col' }), el('th', 'Justification', { scope: 'col' }));
    const thead = el('thead');
    thead.append(head);
    const tbody = el('tbody');
    for (const [id, c] of Object.entries(criteres)) {
      const tr = el('tr', undefined, { 'data-critere': id });
      const assessed = !(c && typeof c === 'object' && c.evalue === false);
      const value = c && typeof c === 'object' ? c.score : c;
      const note = assessed && typeof value === 'number' ? score20(value) : 'non évaluée';
      let why = c && typeof c === 'object' && c.justification ? clean(c.justification) : '';
      if (!assessed && id === 'phonologie') why = 'La prononciation demande l’enregistrement audio brut, qui n’est pas encore analysé : ce critère n’est pas noté et ne compte pas dans la note globale.';
      const whyCell = el('td', why || '—');
      const more = c && typeof c === 'object' ? detailsBlock(c.details) : null;
      if (more) whyCell.append(more);
      tr.append(el('th', criterionName(id), { scope: 'row' }), el('td', note), whyCell);
      tbody.append(tr);
    }
    table.append(thead, tbody);
    part.append(table);
  } else if (phon && phon.note) {
    container.append(el('p', clean(phon.note)));
  }

  const list = (items, title, id, ordered = false) => {
    if (!Array.isArray(items) || !items.length) return;
    const part = section(container, h, `${idPrefix}-${id}`, title);
    const ul = el(ordered ? 'ol' : 'ul');
    for (const item of items) ul.append(el('li', clean(item)));
    part.append(ul);
  };
  list(report.pointsForts, 'Points forts', 'strengths');
  list(report.conseils, Array.isArray(report.conseils) && report.conseils.length === 3 ? 'Trois conseils' : 'Conseils', 'advice', true);

  // Errors, each linked to its quote in the transcript.
  const turns = Array.isArray(transcript) ? transcript.filter((t) => t && typeof t.text === 'string') : [];
  const marks = new Map(); // turn index → [{at, length, id}]
  const errors = Array.isArray(report.erreurs) ? report.erreurs : [];
  const errPart = section(container, h, `${idPrefix}-errors`, 'Erreurs relevées');
  if (!errors.length) errPart.append(el('p', detectorsOnly ? 'Aucune erreur relevée par les détecteurs (ils ne repèrent que certaines erreurs connues).' : 'Aucune erreur relevée.'));
  else {
    const ol = el('ol', undefined, { class: 'report-errors' });
    errors.forEach((e, i) => {
      const li = el('li');
      const found = turns.length ? locate(turns, e.extrait) : undefined;
      const markId = `${idPrefix}-err-${i + 1}`;
      if (found) {
        const arr = marks.get(found.turn) || [];
        if (!arr.some((m) => found.at < m.at + m.length && m.at < found.at + found.length)) arr.push({ at: found.at, length: found.length, id: markId, n: i + 1 });
        marks.set(found.turn, arr);
      }
      const quote = el('p', undefined, { class: 'report-quote' });
      quote.append(el('span', written ? 'Vous avez écrit : ' : 'Vous avez dit : '), el('q', e.extrait || ''));
      if (found) {
        const a = el('a', written ? 'voir dans votre texte' : 'voir dans la transcription', { href: `#${markId}`, class: 'report-jump' });
        quote.append(' (', a, ')');
      }
      const fix = el('p', undefined, { class: 'report-fix' });
      fix.append(el('span', 'Correction : '), el('strong', clean(e.correction) || '—'));
      li.append(quote, fix);
      const what = [e.critere ? criterionName(e.critere) : '', e.description ? clean(e.description) : ''].filter(Boolean).join(' — ');
      if (what) li.append(el('p', what, { class: 'hint' }));
      ol.append(li);
    });
    errPart.append(ol);
  }

  // How the interlocutor kept the exam's rules.
  const rules = report.t2 && report.t2.rules;
  if (rules && typeof rules.replies === 'number') {
    const part = section(container, h, `${idPrefix}-rules`, 'L’interlocuteur a-t-il respecté les règles de l’examen ?');
    part.append(
      el(
        'p',
        rules.replies === 0
          ? 'L’interlocuteur n’a pas eu à répondre.'
          : `${rules.compliant} réponse${rules.compliant > 1 ? 's' : ''} sur ${rules.replies} ${rules.compliant > 1 ? 'ont' : 'a'} respecté toutes les règles (pas de question en retour, pas de correction, réponses courtes, en français).`,
      ),
    );
    const broken = (rules.rules || []).filter((r) => r.violations > 0);
    if (broken.length) {
      const ul = el('ul');
      for (const r of broken) ul.append(el('li', `${clean(r.label)} : ${r.violations} fois`));
      part.append(el('p', 'Écarts relevés :'), ul);
    }
  }

  const warnings = (Array.isArray(report.avertissements) ? report.avertissements : [])
    .filter((w) => !/^Non évaluée/.test(w) && !/^Rapport établi par les détecteurs/.test(w))
    .map(clean);
  if (warnings.length) list(warnings, 'À savoir', 'notes');

  // The transcript with the quoted passages highlighted.
  if (turns.length) {
    const part = section(container, h, `${idPrefix}-transcript`, written ? 'Votre texte' : 'Transcription');
    const ol = el(written ? 'div' : 'ol', undefined, { class: written ? 'report-text' : 't2-transcript report-transcript' });
    turns.forEach((t, i) => {
      const li = el(written ? 'p' : 'li', undefined, { 'data-speaker': t.speaker });
      if (!written) li.append(el('strong', t.speaker === 'candidate' ? 'Vous : ' : 'Interlocuteur : '));
      const span = el('span');
      const ms = (marks.get(i) || []).sort((a, b) => a.at - b.at);
      let pos = 0;
      for (const m of ms) {
        span.append(t.text.slice(pos, m.at));
        const mark = el('mark', t.text.slice(m.at, m.at + m.length), { id: m.id, tabindex: '-1' });
        mark.append(el('sup', String(m.n)));
        span.append(mark);
        pos = m.at + m.length;
      }
      span.append(t.text.slice(pos));
      li.append(span);
      ol.append(li);
    });
    part.append(ol);
  }
}

/** The transcript as a text file, for the live page (the server builds the same for past sessions). */
export function transcriptFile(title, turns) {
  const lines = turns.map((t) => `${t.speaker === 'candidate' ? 'Vous' : 'Interlocuteur'} : ${t.text}`);
  return `${[`Tâche 2 — ${title}`, ...(lines.length ? lines : ['(transcription vide)'])].join('\n\n')}\n`;
}

/** Saves a Blob under `name` (an <a download> clicked once). */
export function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = el('a', '', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

import type { ChatSettings, DocMeta } from '../../machines/chatContract.js';
import { html, trusted, type SafeHtml } from '../html.js';
import type { Exchange } from '../../transports/http/session.js';
import { SETTINGS_LABELS } from '../../machines/chatSettings.js';
import { docHref, renderAnswer } from './markdownRender.js';

/** HTML fragments shared by /assistant, /docs and /admin/chat/params. */

const OFFLINE_NOTICE =
  'Fournisseur hors ligne : aucun modèle de langage n’est appelé. Les réponses sont extractives — les phrases les plus pertinentes des passages trouvés, avec leurs sources.';

export function providerNotice(providerName: string): string | undefined {
  return providerName === 'offline' ? OFFLINE_NOTICE : undefined;
}

/** A stable, unique id per exchange (its time, base 36): the thread is capped, indexes repeat. */
export function exchangeId(prefix: string, ex: Exchange): string {
  return `${prefix}_x${ex.at.toString(36)}`;
}

/** Labels of an answer, in the answer's language (the page around it stays French). */
const LABELS = {
  fr: {
    question: 'Question : ',
    sources: 'Sources',
    offline: 'Réponse extractive (fournisseur hors ligne)',
    model: (model: string, provider: string) => `Modèle : ${model} (${provider})`,
    high: ' · confiance : haute',
    low: ' · confiance : basse',
    langNames: { fr: 'français', en: 'anglais' },
  },
  en: {
    question: 'Question: ',
    sources: 'Sources',
    offline: 'Extractive answer (offline provider)',
    model: (model: string, provider: string) => `Model: ${model} (${provider})`,
    high: ' · confidence: high',
    low: ' · confidence: low',
    langNames: { fr: 'French', en: 'English' },
  },
} as const;

function answerLabels(lang: 'fr' | 'en' | undefined): (typeof LABELS)['fr' | 'en'] {
  return LABELS[lang ?? 'fr'];
}

/**
 * The answer's HTML with its citations linked: each `[n]` becomes a link to source n of the list
 * below (which links to /docs/<path>#<anchor>), and a quoted sentence « … » [n] is marked with the
 * language of source n's document. Runs on the sanitised HTML; `[n]` without a source (the server
 * removes them; this is a second net for old saved threads) is dropped.
 */
function linkMarks(answerHtml: string, sources: Exchange['sources'], id: string): string {
  const mark = (n: number): string => (n >= 1 && n <= sources.length ? `<a class="mark" href="#${id}_src${n}" aria-label="source ${n}">[${n}]</a>` : '');
  return answerHtml
    .replace(/« ([^«»<]*?) » \[(\d{1,3})\]/g, (_, quote: string, n: string) => {
      const src = sources[Number(n) - 1];
      const lang = src?.lang;
      return `${lang ? `<span lang="${lang}">« ${quote} »</span>` : `« ${quote} »`} ${mark(Number(n))}`;
    })
    .replace(/\[(\d{1,3})\](?![^<]*<\/a>)/g, (_, n: string) => mark(Number(n)));
}

/** One question and its answer with sources. `headingLevel` keeps the page outline correct. */
export function exchangeView(ex: Exchange, id: string, headingLevel: 2 | 3 = 3): SafeHtml {
  const h = `h${headingLevel}`;
  const hs = `h${headingLevel + 1}`;
  const cls = ex.state === 'outOfScope' ? 'answer out-of-scope' : ex.state === 'failed' ? 'answer failed' : ex.confidence === 'low' ? 'answer low-confidence' : 'answer';
  const sources = ex.sources;
  const t = answerLabels(ex.lang);
  // The labels are in the answer's language: marked as such when it is not the page's.
  const lang = ex.lang && ex.lang !== 'fr' ? html` lang="${ex.lang}"` : '';
  const meta = ex.provider === 'offline' ? t.offline : t.model(ex.model, ex.provider);
  const confidence = ex.state === 'answered' && ex.confidence ? (ex.confidence === 'high' ? t.high : t.low) : '';
  return html`<article class="${cls}" aria-labelledby="${id}_q" data-state="${ex.state}"${ex.confidence ? html` data-confidence="${ex.confidence}"` : ''}${ex.lang ? html` data-lang="${ex.lang}"` : ''}>
${trusted(`<${h} class="question" id="${id}_q"${ex.lang ? ` lang="${ex.lang}"` : ''}>`)}<span class="visually-hidden">${t.question}</span>${ex.question}${trusted(`</${h}>`)}
${ex.notice ? html`<p class="notice-low"${ex.lang ? html` lang="${ex.lang}"` : ''}>${ex.notice}</p>` : ''}
<div class="answer-text"${ex.lang ? html` lang="${ex.lang}"` : ''}>${trusted(linkMarks(renderAnswer(ex.answer), sources, id))}</div>
${sources.length
    ? html`${trusted(`<${hs} class="sources-title"${lang}>`)}${t.sources}${trusted(`</${hs}>`)}
<ol class="sources">${sources.map(
        (s, i) => html`<li id="${id}_src${i + 1}" tabindex="-1"><a class="source-link" href="${docHref(s.path, s.anchor)}" data-path="${s.path}" data-anchor="${s.anchor}">${s.path}${s.section ? html` — ${trusted(s.lang ? `<span lang="${s.lang}">` : '<span>')}${s.section}${trusted('</span>')}` : ''}</a>${s.lang && s.lang !== (ex.lang ?? 'fr') ? html` <span class="muted"${lang}>(${t.langNames[s.lang]})</span>` : ''}</li>`,
      )}</ol>`
    : ''}
<p class="meta"${lang}>${meta}${confidence}</p>
</article>`;
}

export interface ChatBlockOptions {
  /** Form action (POSTed without JS, fetched with JS). */
  action: string;
  thread: Exchange[];
  /** Id prefix, unique per page. */
  prefix: string;
  headingLevel: 2 | 3;
  /** Extra hidden fields (e.g. the document being viewed). */
  hidden?: Record<string, string>;
  error?: string;
  question?: string;
  /** Where "new conversation" posts. */
  clearAction: string;
}

/**
 * The conversation: earlier exchanges, the latest one inside the aria-live region (so a no-JS
 * POST and the JS flow put the new answer in the same place), then the question form.
 */
export function chatBlock(o: ChatBlockOptions): SafeHtml {
  const earlier = o.thread.slice(0, -1);
  const latest = o.thread.at(-1);
  const p = o.prefix;
  return html`<div class="thread" id="${p}_thread">
${earlier.length ? html`<div class="earlier">${earlier.map((ex) => exchangeView(ex, exchangeId(p, ex), o.headingLevel))}</div>` : ''}
<div id="${p}_answer" class="answer-region" aria-live="polite" aria-busy="false">${latest ? exchangeView(latest, exchangeId(p, latest), o.headingLevel) : ''}</div>
</div>
<form class="ask-form" id="${p}_form" method="post" action="${o.action}" data-chat data-answer="${p}_answer" data-prefix="${p}" data-level="${o.headingLevel}">
${Object.entries(o.hidden ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<div class="field">
<label for="${p}_question">Votre question</label>
<textarea id="${p}_question" name="question" rows="3" maxlength="2000" required aria-describedby="${p}_hint${o.error ? ` ${p}_error` : ''}"${o.error ? html` aria-invalid="true"` : ''}>${o.question ?? ''}</textarea>
<p class="hint" id="${p}_hint">Réponse fondée uniquement sur la documentation, avec ses sources. Entrée envoie la question, Maj+Entrée va à la ligne.</p>
${o.error ? html`<p class="form-error" id="${p}_error" role="alert">${o.error}</p>` : ''}
</div>
<div class="actions">
<button type="submit">Envoyer la question</button>
<p class="chat-status muted" id="${p}_status" role="status"></p>
</div>
</form>
${o.thread.length ? html`<form method="post" action="${o.clearAction}" class="clear-form"><button type="submit" class="secondary">Nouvelle conversation</button></form>` : ''}`;
}

export interface SettingsFieldErrors {
  [key: string]: string | undefined;
}

const FIELD_INFO: Array<{ key: keyof ChatSettings; label: string; hint: string; step?: string; min?: string; max?: string }> = [
  { key: 'model', label: SETTINGS_LABELS.model, hint: 'Identifiant du modèle du fournisseur.' },
  { key: 'k', label: SETTINGS_LABELS.k, hint: 'Nombre de passages retrouvés, 1 à 50.', step: '1', min: '1', max: '50' },
  { key: 'threshold', label: SETTINGS_LABELS.threshold, hint: 'Score 0–1 (part pondérée des mots de la question trouvés dans le meilleur passage) sous lequel la question est refusée, sans appel au modèle.', step: '0.01', min: '0', max: '1' },
  { key: 'confident', label: SETTINGS_LABELS.confident, hint: 'Probabilité 0–1 que la documentation réponde à la question (apprise sur des questions étiquetées à partir des indices de la recherche) à partir de laquelle la réponse est donnée avec une confiance haute. Entre le seuil de refus et celui-ci, le modèle dit d’abord quels passages répondent (hors ligne : réponse à confiance basse, signalée).', step: '0.001', min: '0', max: '1' },
  { key: 'temperature', label: SETTINGS_LABELS.temperature, hint: '0 à 1 ; basse pour la factualité.', step: '0.05', min: '0', max: '1' },
  { key: 'maxTokens', label: SETTINGS_LABELS.maxTokens, hint: 'Longueur maximale de la réponse, 16 à 8192.', step: '1', min: '16', max: '8192' },
  { key: 'historyTurns', label: SETTINGS_LABELS.historyTurns, hint: 'Tours de conversation envoyés au modèle, 0 à 20.', step: '1', min: '0', max: '20' },
];

/** The seven settings as labelled inputs (visitor form and admin ChatConfig form). */
export function settingsFields(values: Record<string, string | number>, errors: SettingsFieldErrors, prefix: string, models: string[]): SafeHtml {
  return html`<div class="fields-grid">${FIELD_INFO.map((f) => {
    const id = `${prefix}_${f.key}`;
    const err = errors[f.key];
    const describedBy = `${id}_hint${err ? ` ${id}_err` : ''}`;
    const value = String(values[f.key] ?? '');
    const input =
      f.key === 'model'
        ? html`<input type="text" id="${id}" name="${f.key}" value="${value}" list="${prefix}_models" required autocomplete="off" aria-describedby="${describedBy}"${err ? html` aria-invalid="true"` : ''}>
<datalist id="${prefix}_models">${models.map((m) => html`<option value="${m}"></option>`)}</datalist>`
        : html`<input type="number" id="${id}" name="${f.key}" value="${value}" step="${f.step}" min="${f.min}" max="${f.max}" required aria-describedby="${describedBy}"${err ? html` aria-invalid="true"` : ''}>`;
    return html`<div class="field">
<label for="${id}">${f.label}</label>
${input}
<p class="hint" id="${id}_hint">${f.hint}</p>
${err ? html`<p class="form-error" id="${id}_err">${err}</p>` : ''}
</div>`;
  })}</div>`;
}

interface TreeNode {
  name: string;
  docs: DocMeta[];
  dirs: Map<string, TreeNode>;
}

function buildTree(docs: DocMeta[]): TreeNode {
  const root: TreeNode = { name: '', docs: [], dirs: new Map() };
  for (const d of [...docs].sort((a, b) => a.path.localeCompare(b.path))) {
    const parts = d.path.split('/');
    let node = root;
    for (const dir of parts.slice(0, -1)) {
      let child = node.dirs.get(dir);
      if (!child) {
        child = { name: dir, docs: [], dirs: new Map() };
        node.dirs.set(dir, child);
      }
      node = child;
    }
    node.docs.push(d);
  }
  return root;
}

function countDocs(node: TreeNode): number {
  let n = node.docs.length;
  for (const d of node.dirs.values()) n += countDocs(d);
  return n;
}

/** Each folder is a disclosure (a real doc set has dozens of files): open when it holds the current document. */
function treeList(node: TreeNode, current: string | undefined, prefix: string): SafeHtml {
  return html`<ul>${node.docs.map((d) =>
    d.path === current
      ? html`<li><a href="${docHref(d.path)}" aria-current="page" data-doc-link>${d.title}</a></li>`
      : html`<li><a href="${docHref(d.path)}" data-doc-link>${d.title}</a></li>`,
  )}${[...node.dirs.values()].map((dir) => {
    const path = `${prefix}${dir.name}/`;
    const open = current?.startsWith(path) ?? false;
    return html`<li><details class="dir-group" data-dir="${path}"${open ? html` open` : ''}><summary><span class="dir">${dir.name}/</span> <span class="muted">(${countDocs(dir)})</span></summary>${treeList(dir, current, path)}</details></li>`;
  })}</ul>`;
}

/** The viewer's navigation tree (folders as nested disclosures). */
export function docsTree(docs: DocMeta[], current: string | undefined): SafeHtml {
  // A <details>: on a phone the list folds away (docs.js closes it on narrow screens) so the
  // document comes first; open by default so the list is there without JavaScript.
  return html`<nav class="docs-tree" aria-labelledby="docs_tree_title" id="docs_tree">
<h2 id="docs_tree_title">Documents</h2>
<p class="docs-index-link"><a href="/docs"${current === undefined ? html` aria-current="page"` : ''}>Index et recherche</a></p>
<details class="docs-tree-list" id="docs_tree_list" open>
<summary>Liste des documents (${docs.length})</summary>
${docs.length ? treeList(buildTree(docs), current, '') : html`<p>Aucun document dans le corpus.</p>`}
</details>
</nav>`;
}

export interface SearchHit {
  path: string;
  title: string;
  section: string;
  anchor: string;
  text: string;
}

/** `/docs`: the corpus at a glance (documents by folder) and a search box over its passages. */
export function docsIndex(docs: DocMeta[], query: string, hits: SearchHit[] | undefined, error?: string): SafeHtml {
  const tree = buildTree(docs);
  const groups: Array<{ name: string; docs: DocMeta[] }> = [];
  if (tree.docs.length) groups.push({ name: '', docs: tree.docs });
  const collect = (node: TreeNode): DocMeta[] => [...node.docs, ...[...node.dirs.values()].flatMap(collect)];
  for (const dir of tree.dirs.values()) groups.push({ name: `${dir.name}/`, docs: collect(dir) });
  return html`<h1 id="doc_title">Documentation</h1>
<p>${docs.length} documents${groups.length > 1 ? html` dans ${groups.length} dossiers` : ''}. Cherchez un passage ou choisissez un document.</p>
<form class="docs-search" role="search" method="get" action="/docs" aria-label="Documentation">
<div class="field"><label for="docs_q">Rechercher dans la documentation</label>
<input type="search" id="docs_q" name="q" value="${query}" maxlength="200" autocomplete="off"${error ? html` aria-invalid="true" aria-describedby="docs_q_error"` : ''}>
${error ? html`<p class="form-error" id="docs_q_error" role="alert">${error}</p>` : ''}</div>
<button type="submit">Rechercher</button>
</form>
${hits
    ? html`<h2 id="docs_results">Résultats pour « ${query} »</h2>
${hits.length
        ? html`<ol class="search-results" aria-labelledby="docs_results">${hits.map(
            (h) => html`<li><a href="${docHref(h.path, h.anchor)}">${h.title}${h.section && h.section !== h.title ? html` — ${h.section}` : ''}</a> <span class="muted">(${h.path})</span><br><span class="snippet">${h.text.length > 220 ? `${h.text.slice(0, 219)}…` : h.text}</span></li>`,
          )}</ol>`
        : html`<p>Aucun passage ne contient ces mots. Essayez d’autres mots, ou parcourez les documents ci-dessous.</p>`}`
    : ''}
<h2>Documents par dossier</h2>
<div class="docs-folders">${groups.map(
    (g) => html`<div class="docs-folder"><h3>${g.name || 'Racine du corpus'} <span class="muted">(${g.docs.length})</span></h3>
<ul>${g.docs.map((d) => html`<li><a href="${docHref(d.path)}" data-doc-link>${d.title}</a>${d.title !== d.path ? html` <span class="muted">${d.path.slice(g.name.length)}</span>` : ''}</li>`)}</ul></div>`,
  )}</div>`;
}

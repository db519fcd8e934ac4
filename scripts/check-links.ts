import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Checks the links of the documentation: README.md, SECURITY.md and every Markdown file under docs/ (or the files
 * named on the command line). A relative link must name a file or folder of the repository, and an `#anchor` must
 * be a heading (or an HTML `id`/`name`) of the Markdown file it points into, slugged as GitHub slugs it. Links with a
 * scheme (`https:`, `mailto:`) are not fetched: the check needs no network. Links inside code are not links.
 * Exits 1 and names each broken link with its file and line.
 */
const ROOT = fileURLToPath(new URL('../', import.meta.url));

interface Link {
  target: string;
  line: number;
}

interface Broken {
  file: string;
  line: number;
  target: string;
  reason: string;
}

/** What GitHub keeps of a heading in its anchor: letters, marks, digits, connectors, hyphens and spaces. */
const NOT_IN_SLUG = /[^\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc}\- ]/gu;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const INLINE_LINK =
  /!?\[((?:[^[\]]|\[[^[\]]*\])*)\]\(\s*(<[^>\n]*>|[^()\s]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
const REFERENCE_DEFINITION = /^ {0,3}\[[^\]\n]+\]:\s*(<[^>\n]*>|\S+)/gm;
const HTML_LINK = /<(?:a|img)\b[^>]*?\s(?:href|src)\s*=\s*"([^"]*)"/gi;
const HTML_ANCHOR = /<a\b[^>]*?\s(?:id|name)\s*=\s*"([^"]*)"/gi;

/** The files checked when none are named: the README, SECURITY.md and docs/. */
function defaultFiles(): string[] {
  const files = ['README.md', 'SECURITY.md'].filter((file) => existsSync(path.join(ROOT, file)));
  const walk = (dir: string): string[] =>
    readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) return walk(relative);
      return entry.name.endsWith('.md') ? [relative] : [];
    });
  return existsSync(path.join(ROOT, 'docs')) ? [...files, ...walk('docs').sort()] : files;
}

/**
 * Code spans blanked out, line breaks kept: a run of backticks opens one, and the next run of the same length in the
 * same paragraph closes it (CommonMark's rule); a run that is never closed is plain text.
 */
function withoutCodeSpans(text: string): string {
  const pieces: string[] = [];
  let kept = 0;
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf('`', at);
    if (open === -1) break;
    let end = open;
    while (text[end] === '`') end++;
    const run = text.slice(open, end);
    const paragraphEnd = text.indexOf('\n\n', end);
    const limit = paragraphEnd === -1 ? text.length : paragraphEnd;
    let close = text.indexOf(run, end);
    while (close !== -1 && close < limit && (text[close + run.length] === '`' || text[close - 1] === '`'))
      close = text.indexOf(run, close + 1);
    if (close === -1 || close >= limit) {
      at = end;
      continue;
    }
    at = close + run.length;
    pieces.push(text.slice(kept, open), text.slice(open, at).replace(/[^\n]/g, ' '));
    kept = at;
  }
  pieces.push(text.slice(kept));
  return pieces.join('');
}

/**
 * The text with everything that is code blanked out (fenced blocks and code spans), line breaks kept, so that what
 * is left is prose whose links are links and whose offsets still give the right line.
 */
export function withoutCode(text: string): string {
  let fence: string | null = null;
  const lines = text.split('\n').map((line) => {
    const marker = FENCE.exec(line)?.[1];
    if (fence === null) {
      if (!marker) return line;
      fence = marker;
      return '';
    }
    if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker)
      fence = null;
    return '';
  });
  return withoutCodeSpans(lines.join('\n'));
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Every link target of a Markdown text, with its line: inline links and images, definitions, HTML links. */
export function linksOf(text: string): Link[] {
  const prose = withoutCode(text);
  const links: Link[] = [];
  for (const pattern of [INLINE_LINK, REFERENCE_DEFINITION, HTML_LINK]) {
    for (const match of prose.matchAll(pattern)) {
      const raw = (pattern === INLINE_LINK ? match[2] : match[1]) ?? '';
      const target = raw.startsWith('<') && raw.endsWith('>') ? raw.slice(1, -1) : raw;
      links.push({ target, line: lineAt(prose, match.index ?? 0) });
    }
  }
  return links.sort((a, b) => a.line - b.line);
}

/** Emphasis markers dropped: `*` anywhere, `_` only around words (an underscore inside a word is a letter). */
function withoutEmphasis(text: string): string {
  return text.replace(/\*+/g, '').replace(/(?<![\p{L}\p{N}_])_+(?=\S)|(?<=\S)_+(?![\p{L}\p{N}_])/gu, '');
}

/** A heading's text as GitHub renders it: code kept as written, links and images as their words, no emphasis or HTML. */
function headingText(heading: string): string {
  const words = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .split(/(`+[^`]*`+)/);
  return words
    .map((part) => (part.startsWith('`') ? part.replace(/`/g, '') : withoutEmphasis(part)))
    .join('')
    .trim();
}

/** GitHub's anchor for a heading's text (github-slugger's rule: lower case, punctuation dropped, spaces to hyphens). */
export function slugOf(heading: string): string {
  return headingText(heading).toLowerCase().replace(NOT_IN_SLUG, '').replace(/ /g, '-');
}

/** Every anchor a Markdown text offers: its headings' slugs (a repeated one numbered as GitHub numbers it), HTML ids. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const prose = withoutCode(text);
  for (const line of prose.split('\n')) {
    const heading = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = slugOf(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const match of prose.matchAll(HTML_ANCHOR)) if (match[1]) anchors.add(match[1]);
  return anchors;
}

const anchorCache = new Map<string, Set<string>>();

function anchorsOfFile(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (!anchors) {
    anchors = anchorsOf(readFileSync(file, 'utf8'));
    anchorCache.set(file, anchors);
  }
  return anchors;
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** Why a link of `from` (a path relative to the root) is broken, or null when it leads where it says. */
export function problemOf(root: string, from: string, target: string): string | null {
  if (SCHEME.test(target) || target.startsWith('//')) return null;
  const hash = target.indexOf('#');
  const pathPart = decoded(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? null : decoded(target.slice(hash + 1));
  const base = pathPart.startsWith('/') ? root : path.dirname(path.join(root, from));
  const resolved = pathPart === '' ? path.join(root, from) : path.join(base, pathPart.split('?')[0] ?? '');
  const relative = path.relative(root, resolved);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return 'leads outside the repository';
  if (!existsSync(resolved)) return `no such file or folder: ${relative}`;
  if (anchor === null || anchor === '') return null;
  if (statSync(resolved).isDirectory()) return `a folder has no anchors: ${relative}`;
  if (!resolved.endsWith('.md')) {
    return /^L\d+(-L\d+)?$/.test(anchor) ? null : `only Markdown files have anchors: ${relative}`;
  }
  return anchorsOfFile(resolved).has(anchor) ? null : `no heading "#${anchor}" in ${relative}`;
}

function check(files: string[]): { broken: Broken[]; links: number } {
  const broken: Broken[] = [];
  let links = 0;
  for (const file of files) {
    const absolute = path.resolve(ROOT, file);
    const relative = path.relative(ROOT, absolute);
    for (const { target, line } of linksOf(readFileSync(absolute, 'utf8'))) {
      links++;
      const reason = problemOf(ROOT, relative, target);
      if (reason) broken.push({ file: relative, line, target, reason });
    }
  }
  return { broken, links };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const named = process.argv.slice(2);
  const files = named.length > 0 ? named : defaultFiles();
  const { broken, links } = check(files);
  for (const { file, line, target, reason } of broken) {
    process.stderr.write(`${file}:${line}: ${target}: ${reason}\n`);
  }
  process.stdout.write(
    `${links} links in ${files.length} files checked: ${broken.length === 0 ? 'all resolve' : `${broken.length} broken`}\n`,
  );
  process.exitCode = broken.length === 0 ? 0 : 1;
}

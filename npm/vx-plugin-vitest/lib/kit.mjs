// kit.mjs: the vx plugin protocol (version 1) for a dependency-free Node
// plugin, and the reading of tool configs both of vx's own plugins need.
// This file is the same in @vzn/vx-plugin-vitest and @vzn/vx-plugin-eslint
// (tests/plugins checks that the two copies are identical), so that each
// package stands alone with no dependency.
import { readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';

export const PROTOCOL = 1;

const MAX_REQUEST = 64 << 20; // bytes of one request on stdin
const MAX_CONFIG = 1 << 20; // bytes read of one config file
const MAX_CHAIN = 64; // config files followed through relative imports
const MAX_WALK = 20000; // directory entries looked at for one project

// PluginError is a refusal worded for the user: printed alone, exit 1.
export class PluginError extends Error {}

// serve reads the one request on stdin, answers it with handlers[stage]
// and writes the one answer on stdout; any error goes to stderr with a
// non-zero exit, which vx shows with the plugin's name.
export async function serve(handlers) {
  try {
    const req = parseRequest(await readStdin());
    const handler = Object.hasOwn(handlers, req.stage) ? handlers[req.stage] : null;
    if (!handler) {
      throw new PluginError(`stage ${JSON.stringify(req.stage)} is not one this plugin has (${Object.keys(handlers).join(', ')})`);
    }
    const answer = await handler(req);
    process.stdout.write(JSON.stringify({ protocol: PROTOCOL, ...answer }) + '\n');
  } catch (e) {
    process.stderr.write((e instanceof PluginError ? e.message : e.stack || String(e)) + '\n');
    process.exitCode = 1;
  }
}

function readStdin() {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    process.stdin.on('data', (c) => {
      size += c.length;
      if (size > MAX_REQUEST) {
        reject(new PluginError(`the request is over ${MAX_REQUEST} bytes`));
        process.stdin.destroy();
        return;
      }
      chunks.push(c);
    });
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}

// parseRequest checks the envelope every request has.
export function parseRequest(text) {
  let req;
  try {
    req = JSON.parse(text);
  } catch (e) {
    throw new PluginError(`the request is not JSON: ${e.message}`);
  }
  if (!isObject(req)) throw new PluginError('the request is not a JSON object');
  if (req.protocol !== PROTOCOL) {
    throw new PluginError(`protocol ${JSON.stringify(req.protocol)} is not supported: this plugin speaks protocol ${PROTOCOL}`);
  }
  return req;
}

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// readOptions checks the plugin's options against spec ({name: {type,
// default}}, type 'string' or 'strings') and fills in the defaults. An
// unknown option or a wrong type is refused, naming it.
export function readOptions(given, spec) {
  if (given === undefined || given === null) given = {};
  if (!isObject(given)) throw new PluginError('options must be a JSON object');
  const out = {};
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(spec, key)) {
      throw new PluginError(`unknown option ${JSON.stringify(key)} (known: ${Object.keys(spec).join(', ')})`);
    }
  }
  for (const [key, { type, default: def }] of Object.entries(spec)) {
    const v = Object.hasOwn(given, key) ? given[key] : def;
    if (type === 'string' && !(typeof v === 'string' && v !== '' && v.length <= 200)) {
      throw new PluginError(`option ${key} must be a non-empty string of at most 200 characters`);
    }
    if (type === 'strings' && !(Array.isArray(v) && v.length <= 256 && v.every((s) => typeof s === 'string' && s !== '' && s.length <= 4096))) {
      throw new PluginError(`option ${key} must be an array of at most 256 non-empty strings`);
    }
    out[key] = type === 'strings' ? [...v] : v;
  }
  return out;
}

// readTasksRequest checks a tasks request's files and projects and
// returns them with each project root as "." or a clean relative path.
export function readTasksRequest(req) {
  const files = req.files ?? [];
  const projects = req.projects ?? [];
  if (!Array.isArray(files) || !files.every((f) => typeof f === 'string' && isRelative(f))) {
    throw new PluginError('files must be an array of workspace-relative paths');
  }
  if (!Array.isArray(projects) || !projects.every((p) => isObject(p) && typeof p.name === 'string' && typeof p.root === 'string' && isRelative(p.root || '.'))) {
    throw new PluginError('projects must be an array of {name, root} with workspace-relative roots');
  }
  return { files, projects: projects.map((p) => ({ name: p.name, root: cleanRel(p.root), scripts: scriptsGiven(p.scripts) })) };
}

// scriptsGiven is the scripts vx gave a project (its package.json's, an
// object of strings), or undefined when the request has none (an older
// vx sends no scripts) or they are not strings.
function scriptsGiven(scripts) {
  if (!isObject(scripts) || !Object.values(scripts).every((v) => typeof v === 'string')) return undefined;
  return scripts;
}

function isRelative(p) {
  return p !== '' && !p.startsWith('/') && !/^[A-Za-z]:/.test(p) && !p.split(/[\\/]/).includes('..');
}

function cleanRel(p) {
  const c = path.posix.normalize((p || '.').replaceAll('\\', '/')).replace(/\/$/, '');
  return c === '' ? '.' : c;
}

// dirOf is the workspace-relative directory of a workspace-relative file.
export function dirOf(file) {
  return path.posix.dirname(cleanRel(file));
}

// within reports whether the workspace-relative path p is dir or below it.
export function within(dir, p) {
  return dir === '.' || p === dir || p.startsWith(dir + '/');
}

// projectPath is how a task of the project at root names the
// workspace-relative file p among its inputs: relative to the project
// when inside it, else "/" and the workspace path.
export function projectPath(root, p) {
  if (root === '.') return p;
  return within(root, p) ? p.slice(root.length + 1) : '/' + p;
}

// readText reads a workspace file as text, at most MAX_CONFIG bytes, or
// '' when it cannot be read.
export function readText(wsRoot, rel) {
  try {
    const abs = path.join(wsRoot, rel);
    if (statSync(abs).size > MAX_CONFIG) return '';
    return readFileSync(abs, 'utf8');
  } catch {
    return '';
  }
}

// scriptsOf is the scripts of the project's package.json, as the tasks
// request gives them (readTasksRequest); read from the file when it does
// not ({} when it has none or cannot be read).
export function scriptsOf(wsRoot, project) {
  if (project.scripts) return project.scripts;
  const root = project.root;
  const text = readText(wsRoot, root === '.' ? 'package.json' : root + '/package.json');
  try {
    const scripts = JSON.parse(text).scripts;
    return scripts !== null && typeof scripts === 'object' && !Array.isArray(scripts) ? scripts : {};
  } catch {
    return {};
  }
}

// loadedFromWorkspace is what the task of project self needs of the
// workspace projects its config imports by package name (packages): the
// build of each that has one, to run first (Node loads such a package from
// the entry its package.json names, usually built output that a fresh
// clone does not have), and the files of each that has none (a shared
// config kept as source: honojs/middleware's @hono/eslint-config,
// Turborepo's @repo/vitest-config), which the `npm:` input of a package
// the lockfile links into the workspace does not follow. A project with a
// build reaches the task's key through its build's key.
export function loadedFromWorkspace(wsRoot, packages, self, projects) {
  const names = new Set(packages);
  const dependsOn = [];
  const inputs = [];
  for (const p of projects) {
    if (p.name === self || !names.has(p.name)) continue;
    if (typeof scriptsOf(wsRoot, p).build === 'string') dependsOn.push(p.name + '#build');
    else if (p.root !== '.') inputs.push(`/${p.root}/**`, `!/${p.root}/**/*.{md,mdx}`);
  }
  return { dependsOn: dependsOn.sort(), inputs };
}

// Characters and words after which a "/" starts a regular expression
// literal rather than dividing (after a name, a number, ")" or "]" it
// divides).
const REGEX_AFTER = new Set('(,=:[!&|?{};+-*%<>~^');
const REGEX_AFTER_WORD = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

// literals lists the comments ('comment'), string and template literals
// ('string') and regular expression literals ('regex') of JavaScript text
// as [kind, start, end] offsets, in order; the rest is code. It knows just
// enough of the language for that: a "/" starts a regular expression at
// the start of the text or of a line, after an operator or one of
// REGEX_AFTER_WORD, when the literal ends on its line (else it divides,
// and no other "/" of that line starts one: each line is scanned for a
// literal's end at most once, so a long line of "/[" costs no more).
export function literals(src) {
  const out = [];
  let prev = -1; // offset of the last character of code or of a literal
  let newline = false; // a line ends between prev and i
  let noRegex = -1; // no regex literal starts before this offset
  for (let i = 0; i < src.length; ) {
    const c = src[i];
    let end = -1;
    let kind = '';
    if (c === '/' && (src[i + 1] === '/' || src[i + 1] === '*')) {
      end = src[i + 1] === '/' ? lineEnd(src, i) : blockCommentEnd(src, i);
      kind = 'comment';
      if (src.slice(i, end).includes('\n')) newline = true;
    } else if (c === '"' || c === "'" || c === '`') {
      [end, kind] = [stringEnd(src, i), 'string'];
    } else if (c === '/' && i >= noRegex && (prev < 0 || newline || regexMayFollow(src, prev))) {
      [end, kind] = [regexEnd(src, i), 'regex'];
      if (end < 0) noRegex = lineEnd(src, i);
    }
    if (end < 0) {
      if (c === '\n') newline = true;
      else if (c !== ' ' && c !== '\t' && c !== '\r') [prev, newline] = [i, false];
      i++;
      continue;
    }
    out.push([kind, i, end]);
    if (kind !== 'comment') [prev, newline] = [end - 1, false];
    i = end;
  }
  return out;
}

function lineEnd(src, i) {
  const end = src.indexOf('\n', i);
  return end < 0 ? src.length : end;
}

function blockCommentEnd(src, i) {
  const end = src.indexOf('*/', i + 2);
  return end < 0 ? src.length : end + 2;
}

// stringEnd is the offset just past the string or template literal at i:
// past its closing quote, or at the line's end for a quote left open (a
// template literal may span lines).
function stringEnd(src, i) {
  const q = src[i];
  let j = i + 1;
  while (j < src.length && src[j] !== q) {
    if (q !== '`' && src[j] === '\n') return j;
    j += src[j] === '\\' ? 2 : 1;
  }
  return Math.min(j + 1, src.length);
}

// regexMayFollow: the code character at prev is one after which a "/"
// starts a regular expression literal.
function regexMayFollow(src, prev) {
  if (REGEX_AFTER.has(src[prev])) return true;
  let j = prev;
  while (j >= 0 && prev - j <= 10 && /[\w$]/.test(src[j])) j--; // the longest word is 10 letters
  return j < prev && src[j] !== '.' && REGEX_AFTER_WORD.has(src.slice(j + 1, prev + 1));
}

// regexEnd is the offset just past the regular expression literal at i
// (its flags included), or -1 when none ends on the line: a "/" inside a
// character class [...] or escaped does not end it.
function regexEnd(src, i) {
  let inClass = false;
  for (let j = i + 1; j < src.length; j++) {
    const c = src[j];
    if (c === '\n' || (c === '\\' && src[j + 1] === '\n')) return -1;
    if (c === '\\') j++;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) {
      let k = j + 1;
      while (k < src.length && /[A-Za-z]/.test(src[k])) k++;
      return k;
    }
  }
  return -1;
}

// stripComments removes // and /* */ comments from JavaScript text, leaving
// strings, template and regular expression literals whole (a URL's // is
// not a comment, nor is /* in a regular expression).
export function stripComments(src) {
  const parts = [];
  let at = 0;
  for (const [kind, start, end] of literals(src)) {
    if (kind !== 'comment') continue;
    parts.push(src.slice(at, start), src[start + 1] === '*' ? ' ' : '');
    at = end;
  }
  parts.push(src.slice(at));
  return parts.join('');
}

const SPECIFIER = /\bfrom\s*(['"])([^'"\n]+)\1|\bimport\s*(['"])([^'"\n]+)\3|\b(?:import|require)\s*\(\s*(['"])([^'"\n]+)\5\s*\)/g;

// specifiers lists the module specifiers a JavaScript/TypeScript file
// imports or requires with a literal string (an "import" or "from" inside
// a string or a regular expression is not one).
export function specifiers(src) {
  const text = stripComments(src);
  const code = blankStrings(text);
  const out = [];
  for (const m of text.matchAll(SPECIFIER)) {
    if (code[m.index] === text[m.index]) out.push(m[2] ?? m[4] ?? m[6]);
  }
  return out;
}

const builtins = new Set(builtinModules);

// An npm package name: URL-safe characters, not starting with "." or "_",
// with an optional @scope/ (upper case letters only in old packages).
const PACKAGE_NAME = /^(?:@[A-Za-z0-9~-][A-Za-z0-9._~-]*\/)?[A-Za-z0-9~-][A-Za-z0-9._~-]*$/;

// packageOf is the npm package a bare specifier names ("vitest/config" is
// vitest, "@scope/x/y" is @scope/x), or '' for a builtin, a relative or
// absolute path, an import map entry (#x) or a name npm cannot have.
export function packageOf(spec) {
  if (/^(\.|\/|#|[A-Za-z]:|node:|data:|file:|https?:)/.test(spec)) return '';
  const parts = spec.split('/');
  const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  if (name.length > 214 || !PACKAGE_NAME.test(name)) return '';
  return builtins.has(name) ? '' : name;
}

// Files read as JavaScript or TypeScript for their imports; any other file
// a config imports (package.json, a .css) is an input, not code.
const MODULE = /\.(?:[cm]?[jt]s|[jt]sx)$/;

const RESOLVE_EXT = ['', '.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json', '/index.ts', '/index.js', '/index.mjs', '/index.cjs'];

// configChain follows a config file's relative imports, transitively,
// within the workspace: files are the workspace-relative files read (the
// config first), packages the npm packages any of them imports by name,
// and text their comment-free contents joined. A file reached through a
// symbolic link (itself or a directory above it) is listed as both the
// link and the file it leads to, whose imports are followed from where it
// really is, as Node does: vx hashes a link by the path it holds, so only
// the real file's content tells a change. A link that leads out of the
// workspace is listed alone (vx reads no input there).
export function configChain(wsRoot, file) {
  const realRoot = realPath(wsRoot) || wsRoot;
  const files = [];
  const packages = new Set();
  const texts = [];
  const queue = [file];
  while (queue.length && files.length < MAX_CHAIN) {
    const rel = queue.shift();
    if (files.includes(rel)) continue;
    files.push(rel);
    const real = realRel(wsRoot, realRoot, rel);
    if (real !== rel && (!real || files.includes(real))) continue;
    if (real !== rel) files.push(real);
    if (!MODULE.test(real)) continue;
    const src = readText(wsRoot, real);
    texts.push(stripComments(src));
    for (const spec of specifiers(src)) {
      const pkg = packageOf(spec);
      if (pkg) packages.add(pkg);
      if (!spec.startsWith('.')) continue;
      const target = resolveRelative(wsRoot, path.posix.join(path.posix.dirname(real), spec));
      if (target) queue.push(target);
    }
  }
  return { files: files.slice(0, MAX_CHAIN), packages: [...packages].sort(), text: texts.join('\n') };
}

function realPath(abs) {
  try {
    return realpathSync(abs);
  } catch {
    return '';
  }
}

// realRel is the workspace-relative path of the file the workspace file
// rel really is (rel itself unless a link leads there), or '' when that
// is outside the workspace.
function realRel(wsRoot, realRoot, rel) {
  const real = realPath(path.join(wsRoot, rel));
  if (!real) return rel;
  const p = path.relative(realRoot, real);
  if (p === '' || p === '..' || p.startsWith('..' + path.sep) || path.isAbsolute(p)) return '';
  return p.split(path.sep).join('/');
}

// TypeScript's names for a file imported by the JavaScript name it
// compiles to: './base.mjs' is base.mts when no base.mjs exists, as
// TypeScript and Vite's config loader find it.
const TS_OF_JS = { '.js': ['.ts', '.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'], '.jsx': ['.tsx'] };

// resolveRelative finds the file a relative import names the way Node and
// the bundlers do (the path itself, then the TypeScript file of a
// JavaScript name, then with an extension, then an index file), or ''
// when there is none inside the workspace.
function resolveRelative(wsRoot, rel) {
  const clean = path.posix.normalize(rel);
  if (clean.startsWith('../') || clean === '..') return '';
  const ext = path.posix.extname(clean);
  const ts = Object.hasOwn(TS_OF_JS, ext) ? TS_OF_JS[ext].map((x) => clean.slice(0, -ext.length) + x) : [];
  for (const candidate of [clean, ...ts, ...RESOLVE_EXT.slice(1).map((x) => clean + x)]) {
    try {
      if (statSync(path.join(wsRoot, candidate)).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return '';
}

// hasFile reports whether the project directory dir (workspace-relative)
// holds a file whose name ends with one of exts, outside node_modules, dot
// directories and the directories of other projects (roots: every
// project's root), looking at no more than MAX_WALK entries.
export function hasFile(wsRoot, dir, exts, roots) {
  const stack = [dir];
  let seen = 0;
  while (stack.length) {
    const d = stack.pop();
    let entries;
    try {
      entries = readdirSync(path.join(wsRoot, d), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > MAX_WALK) return true; // too big to tell: assume it has
      const rel = d === '.' ? e.name : d + '/' + e.name;
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && !e.name.startsWith('.') && !roots.has(rel)) stack.push(rel);
      } else if (exts.some((x) => e.name.endsWith(x))) {
        return true;
      }
    }
  }
  return false;
}

// blankStrings replaces what string, template and regular expression
// literals hold in src (comment-free) with spaces, keeping every offset
// and line break: a key, a brace or a quote inside a literal is not code.
export function blankStrings(src) {
  const parts = [];
  let at = 0;
  for (const [kind, start, end] of literals(src)) {
    if (kind === 'comment') continue;
    // Keep the opening quote or slash; a regex keeps its flags' place blank.
    const close = kind === 'string' && end - start > 1 && src[end - 1] === src[start] ? end - 1 : end;
    parts.push(src.slice(at, start + 1), src.slice(start + 1, close).replace(/[^\n]/g, ' '));
    at = close;
  }
  parts.push(src.slice(at));
  return parts.join('');
}

// hasKey reports whether src (comment-free) has key: as an object key
// outside strings.
export function hasKey(src, key) {
  return new RegExp(`(?:^|[^\\w$.])${key}\\s*:`, 'm').test(blankStrings(src));
}

// block returns the text of the object literal that follows key: in src
// (comment-free), braces balanced, or '' when key: is not followed by one;
// keys and braces inside strings do not count.
export function block(src, key) {
  const code = blankStrings(src);
  const m = new RegExp(`(?:^|[^\\w$.])${key}\\s*:\\s*\\{`).exec(code);
  if (!m) return '';
  let depth = 0;
  for (let i = m.index + m[0].length - 1; i < code.length; i++) {
    if (code[i] === '{') depth++;
    else if (code[i] === '}' && --depth === 0) return src.slice(m.index + m[0].length, i);
  }
  return '';
}

// packageVersion is the version in the package.json beside the plugin's
// entry (metaURL, its import.meta.url).
export function packageVersion(metaURL) {
  const pkg = JSON.parse(readFileSync(new URL('./package.json', metaURL), 'utf8'));
  return pkg.version;
}

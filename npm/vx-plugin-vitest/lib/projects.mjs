// projects.mjs: a project whose Vitest config is a root config's
// `test.projects` entry brought into the project (trpc's
// `export { default } from '../../vitest.config'`): `vitest run` in the
// project's directory finds that config's `projects` globs relative to
// the project and stops with "No projects were found"; the project's
// tests run from the root config's directory with `--project <name>`.
import path from 'node:path';
import { readText, stripComments, blankStrings, block, within, dirOf, packageOf } from './kit.mjs';

const ROOT_CONFIG = /^(?:vitest|vite)\.config\.[cm]?[jt]s$/;
const MAX_PATTERNS = 256; // strings read of one projects array

// workspaceOf is the root config the project's config chain brings in
// whose test.projects covers the project: {dir, file, test} (its
// directory, workspace-relative, and its comment-free test block), or
// null when there is none (every other layout).
export function workspaceOf(wsRoot, root, file, chain) {
  for (const f of chain.files.slice(1)) {
    const dir = dirOf(f);
    if (!ROOT_CONFIG.test(path.posix.basename(f)) || within(root, f) || dir === root || !within(dir, root)) continue;
    const test = block(stripComments(readText(wsRoot, f)), 'test');
    const patterns = arrayStrings(test, 'projects');
    if (covers(patterns, relTo(dir, root), relTo(dir, file))) return { dir, file: f, test };
  }
  return null;
}

// relTo is the workspace-relative path p relative to the directory dir
// (an ancestor of p, or p itself: '.').
function relTo(dir, p) {
  return path.posix.relative(dir === '.' ? '' : dir, p) || '.';
}

// covers: a positive pattern matches the project's directory or its
// config file and no "!" pattern does, as Vitest reads `projects` globs.
function covers(patterns, projectDir, configFile) {
  const matches = (re) => re.test(projectDir) || re.test(configFile);
  let hit = false;
  for (const p of patterns) {
    if (p.startsWith('!')) {
      if (matches(globRegExp(p.slice(1)))) return false;
    } else if (matches(globRegExp(p))) {
      hit = true;
    }
  }
  return hit;
}

// globRegExp turns a glob (*, **, ?, {a,b}) relative to a directory into
// a regular expression over slash paths relative to it.
export function globRegExp(glob) {
  const g = path.posix.normalize(glob.replace(/^\.\//, '')).replace(/\/$/, '');
  let re = '';
  let braces = 0;
  for (let i = 0; i < g.length; i++) {
    const c = g[i];
    if (c === '*' && g[i + 1] === '*') {
      re += g[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += g[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '{') [re, braces] = [re + '(?:', braces + 1];
    else if (c === '}' && braces > 0) [re, braces] = [re + ')', braces - 1];
    else if (c === ',' && braces > 0) re += '|';
    else re += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp('^' + re + ')'.repeat(braces) + '$');
}

// arrayStrings lists the string literals of the array (or the one string)
// at key in text (comment-free) that are not inside a nested object:
// `projects: ['./packages/*', { test: {...} }]` gives ['./packages/*'].
export function arrayStrings(text, key) {
  const code = blankStrings(text);
  const m = new RegExp(`(?:^|[^\\w$.])${key}\\s*:\\s*`).exec(code);
  if (!m) return [];
  const start = m.index + m[0].length;
  if (code[start] === "'" || code[start] === '"' || code[start] === '`') return [stringAt(text, code, start)];
  if (code[start] !== '[') return [];
  const out = [];
  let depth = 0;
  for (let i = start; i < code.length && out.length < MAX_PATTERNS; i++) {
    const c = code[i];
    if (c === '[' || c === '{' || c === '(') depth++;
    else if (c === ']' || c === '}' || c === ')') {
      if (--depth === 0) break;
    } else if (depth === 1 && (c === "'" || c === '"' || c === '`')) {
      out.push(stringAt(text, code, i));
      i += out[out.length - 1].length + 1;
    }
  }
  return out;
}

// stringAt is the content of the string literal whose opening quote is
// at i (code is text with literals blanked, so its closing quote is the
// next quote of the same kind).
function stringAt(text, code, i) {
  const end = code.indexOf(code[i], i + 1);
  return text.slice(i + 1, end < 0 ? code.length : end);
}

// projectName is the name Vitest gives the project at root: its config's
// own test.name (a string, or an object's label), else its package.json
// name, else its directory's name.
export function projectName(wsRoot, root, file) {
  const test = block(stripComments(readText(wsRoot, file)), 'test');
  const named = topLevel(test, 'name');
  const m = /^\s*(['"])([^'"\n]+)\1/.exec(named) || /(?:^|[^\w$.])label\s*:\s*(['"])([^'"\n]+)\1/.exec(block(test, 'name'));
  if (m) return m[2];
  try {
    const pkg = JSON.parse(readText(wsRoot, root + '/package.json'));
    if (typeof pkg.name === 'string' && pkg.name) return pkg.name;
  } catch {
    // no package.json, or not JSON: the directory's name
  }
  return path.posix.basename(root);
}

// topLevel is the text after key: where key is a key of the object text
// holds (not of one nested in it), or '' when it has none.
function topLevel(text, key) {
  const code = blankStrings(text);
  const re = new RegExp(`(?:^|[^\\w$.])${key}\\s*:`, 'g');
  let depth = 0;
  let at = 0;
  for (const m of code.matchAll(re)) {
    for (const keyAt = m.index + (m[0].startsWith(key) ? 0 : 1); at < keyAt; at++) {
      if ('{[('.includes(code[at])) depth++;
      else if ('}])'.includes(code[at])) depth--;
    }
    if (depth === 0) return text.slice(m.index + m[0].length);
  }
  return '';
}

// extraInputs is what the root config's test block makes the project's
// tests read outside the project: its setupFiles and globalSetup (string
// paths, resolved from the project's directory as Vitest resolves them)
// and the package of a jsdom or happy-dom environment.
export function extraInputs(root, test) {
  const out = [];
  for (const f of [...arrayStrings(test, 'setupFiles'), ...arrayStrings(test, 'globalSetup')]) {
    const pkg = packageOf(f);
    if (pkg) {
      out.push('npm:' + pkg);
      continue;
    }
    if (!f.startsWith('.')) continue;
    const rel = path.posix.normalize(path.posix.join(root, f));
    if (rel.startsWith('../') || rel === '..' || within(root, rel)) continue;
    out.push('/' + rel);
  }
  const env = /^\s*(['"])(jsdom|happy-dom)\1/.exec(topLevel(test, 'environment'));
  if (env) out.push('npm:' + env[2]);
  return out;
}

// projectCommand runs the project's tests with the root's Vitest (a
// project's own copy, first on the task's PATH, is another Vitest), from
// the root config's directory, filtered to the project. '' when the name
// cannot be written on a command line that sh and cmd.exe read alike.
export function projectCommand(root, dir, name) {
  const up = path.posix.relative(root, dir === '.' ? '' : dir) || '.';
  let arg = name;
  if (!/^[\w@/.:+-]+$/.test(name)) {
    if (/["$`\\%!^&|<>()\n\r]/.test(name)) return '';
    arg = `"${name}"`;
  }
  return `node ${up}/node_modules/vitest/vitest.mjs run --root ${up} --project ${arg}`;
}

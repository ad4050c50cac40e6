#!/usr/bin/env node
// @vzn/vx-plugin-eslint: a vx plugin (protocol 1, docs/plugins.md) that
// gives each project under an ESLint flat config a `lint` task running
// the project's own ESLint script, or `eslint .` in a workspace that has
// none, with the inputs ESLint reads. README.md says which projects get a
// task and why.
import { serve, PluginError, readOptions, readTasksRequest, readText, dirOf, within, projectPath, configChain, hasFile, hasKey, packageOf, packageVersion, scriptsOf, loadedFromWorkspace } from './lib/kit.mjs';

// ESLint's own order of flat config names in one directory.
const CONFIGS = ['eslint.config.js', 'eslint.config.mjs', 'eslint.config.cjs', 'eslint.config.ts', 'eslint.config.mts', 'eslint.config.cts'];
// .eslintrc* too: the plugin reads the legacy configs a script may turn
// to, and vx asks it again only when a file its globs match changes (or
// the projects, their scripts included, do: the tasks request gives the
// scripts, so no package.json is matched).
const GLOBS = ['**/eslint.config.{js,mjs,cjs,ts,mts,cts}', '**/.eslintrc*'];
// ESLint 8's legacy config names, in its order within one directory.
const LEGACY = ['.eslintrc.js', '.eslintrc.cjs', '.eslintrc.yaml', '.eslintrc.yml', '.eslintrc.json', '.eslintrc'];
// A script that turns flat config off, so ESLint 9 reads .eslintrc* files.
const LEGACY_ON = /(?:^|\s)ESLINT_USE_FLAT_CONFIG=(?:false|0)\s/;
// Files `eslint .` lints with a usual config: a project with none of them
// gets no task (ESLint would fail with "No files matching the pattern").
const LINTABLE = ['.js', '.mjs', '.cjs', '.jsx', '.ts', '.mts', '.cts', '.tsx'];

const OPTIONS = {
  taskName: { type: 'string', default: 'lint' },
  inputs: { type: 'strings', default: [] },
  env: { type: 'strings', default: [] },
  projects: { type: 'string', default: 'auto' },
};
// Which projects under a config get a task: those with an ESLint script
// of their own, all with a file ESLint lints, or (auto) the first when any
// project has such a script and else the second.
const PROJECTS = ['auto', 'scripted', 'all'];

// readLintOptions is readOptions with the projects option checked.
function readLintOptions(given) {
  const opts = readOptions(given, OPTIONS);
  if (!PROJECTS.includes(opts.projects)) {
    throw new PluginError(`option projects must be one of ${PROJECTS.join(', ')}, not ${JSON.stringify(opts.projects)}`);
  }
  return opts;
}

// Every file of the project but Markdown, and the same of the projects it
// depends on but their tests and tool configs (rules that resolve imports
// or read types look into a dependency's sources, never into its tests or
// its own ESLint and Vite configs).
// (Kept short: a workspace of 10,000 projects answers 10,000 tasks.)
const SOURCES = ['**', '!**/*.{md,mdx}', '^**', '^!**/*.{md,mdx}', '^!**/*.{test,spec}.*', '^!**/{eslint,vite,vitest}.config.*'];

function describe(req) {
  readLintOptions(req.options);
  return { name: 'eslint', version: packageVersion(import.meta.url), stages: ['tasks'], globs: GLOBS };
}

function tasks(req) {
  const opts = readLintOptions(req.options);
  const { files, projects } = readTasksRequest(req);
  const byDir = configsByDir(files);
  const wsRoot = process.cwd();
  const roots = new Set(projects.map((p) => p.root));
  const scripts = new Map(projects.map((p) => [p.name, scriptsOf(wsRoot, p)]));
  // A workspace where some project lints through a script of its own
  // lints only those (projects "auto"): a project with none is one its
  // authors chose not to lint (an example, a fixture).
  const runs = new Map([...scripts].map(([name, s]) => [name, eslintScript(s)]));
  const scripted = opts.projects === 'auto' ? [...runs.values()].some((r) => r !== null) : opts.projects === 'scripted';
  const present = new Set(files);
  const out = [];
  for (const p of projects) {
    const file = nearestConfig(p.root, byDir);
    if (!file) continue;
    const script = runs.get(p.name);
    if (script === null && (scripted || !hasFile(wsRoot, p.root, LINTABLE, roots))) continue;
    const chain = configChain(wsRoot, file);
    if (script && LEGACY_ON.test(script)) addLegacy(chain, legacyConfigs(wsRoot, p.root, present));
    const task = lintTask(p, file, chain, opts);
    if (script) task.command = script;
    const loaded = loadedFromWorkspace(wsRoot, chain.packages, p.name, projects);
    if (loaded.dependsOn.length) task.dependsOn = loaded.dependsOn;
    task.inputs.push(...loaded.inputs);
    out.push(task);
  }
  out.sort((a, b) => (a.project < b.project ? -1 : a.project > b.project ? 1 : 0));
  return { tasks: out };
}

// configsByDir maps each directory to the flat config ESLint loads there
// (the first of CONFIGS present).
function configsByDir(files) {
  const byDir = new Map();
  for (const f of files) {
    const base = f.slice(f.lastIndexOf('/') + 1);
    const rank = CONFIGS.indexOf(base);
    if (rank < 0) continue;
    const dir = dirOf(f);
    const had = byDir.get(dir);
    if (!had || CONFIGS.indexOf(had.slice(had.lastIndexOf('/') + 1)) > rank) byDir.set(dir, f);
  }
  return byDir;
}

// nearestConfig is the config `eslint .` run in the project directory
// loads: ESLint 9 looks in that directory, then in each parent up to the
// workspace root.
function nearestConfig(root, byDir) {
  for (let dir = root; ; dir = dirOf(dir)) {
    if (byDir.has(dir)) return byDir.get(dir);
    if (dir === '.') return '';
  }
}

// ESLINT_RUN is a script that is one ESLint run and nothing else: maybe
// variables set before it (ESLINT_USE_FLAT_CONFIG=false), then eslint and
// its arguments, with no second command (&&, ||, ;, |, &, $(...), `...`)
// and no redirection.
const ESLINT_RUN = /^(?:[A-Za-z_][A-Za-z0-9_]*=[^\s&|;<>`$]*\s+)*eslint(?:\s+[^&|;<>`$\n]*)?$/;
const MAX_SCRIPT = 4096;

// eslintScript is the command a project's scripts lint it with: its
// "lint" script when that is an ESLint run, else the first such script
// (package.json order), leaving out those that --fix (they write the
// sources); `eslint .` when its only ESLint runs fix; null when it has
// none.
function eslintScript(scripts) {
  const runs = Object.entries(scripts).filter(([, v]) => typeof v === 'string' && v.length <= MAX_SCRIPT && ESLINT_RUN.test(v.trim()));
  if (!runs.length) return null;
  const checks = runs.filter(([, v]) => !/\s--fix(?:\s|$)/.test(v));
  const pick = checks.find(([k]) => k === 'lint') ?? checks[0];
  return pick ? pick[1].trim() : 'eslint .';
}

function lintTask(p, file, chain, opts) {
  const inputs = [...SOURCES];
  // The config and what it imports: inside the project "**" has them.
  for (const f of chain.files) if (!within(p.root, f)) inputs.push(projectPath(p.root, f));
  // Typed linting reads the tsconfig files, the root ones included.
  if (['projectService', 'project', 'tsconfigRootDir'].some((k) => hasKey(chain.text, k))) inputs.push('/tsconfig*.json');
  inputs.push('npm:eslint');
  for (const pkg of chain.packages) if (pkg !== 'eslint') inputs.push('npm:' + pkg);
  inputs.push(...opts.inputs);
  const task = { project: p.name, name: opts.taskName, file, command: 'eslint .', inputs: [...new Set(inputs)], cache: true };
  if (opts.env.length) task.env = [...new Set(opts.env)];
  return task;
}

// legacyConfigs is what the .eslintrc* files ESLint 9 reads for a project
// with flat config turned off name: from the project's directory up to
// the workspace root, the first of LEGACY in each directory, stopping
// after one that says root: true. files are workspace-relative, packages
// the plugins and shareable configs they name, as npm packages.
function legacyConfigs(wsRoot, root, present) {
  const files = [];
  const packages = new Set();
  for (let dir = root; ; dir = dirOf(dir)) {
    const file = LEGACY.map((n) => (dir === '.' ? n : dir + '/' + n)).find((f) => present.has(f));
    if (file) {
      const text = readText(wsRoot, file);
      files.push(file);
      for (const pkg of legacyPackages(text)) packages.add(pkg);
      if (/(?:^|[^\w$.])["']?root["']?\s*:\s*true\b/m.test(text)) break;
    }
    if (dir === '.') break;
  }
  return { files, packages: [...packages] };
}

// addLegacy adds the legacy configs' files and packages to a flat config
// chain, as what the task reads.
function addLegacy(chain, legacy) {
  for (const f of legacy.files) if (!chain.files.includes(f)) chain.files.push(f);
  chain.packages = [...new Set([...chain.packages, ...legacy.packages])].sort();
}

// legacyPackages lists the npm packages a legacy config (JSON, YAML or
// JavaScript) names: each plugin of "plugin:<name>/<config>" in extends
// and of plugins, and each shareable config of extends, by ESLint's naming
// rules ("@scope/x" is @scope/eslint-plugin-x, "x" is eslint-plugin-x).
function legacyPackages(text) {
  const out = [];
  for (const m of text.matchAll(/plugin:(@[\w.-]+\/[\w.-]+|@[\w.-]+|[\w.-]+)\/[\w.-]+/g)) out.push(legacyName(m[1], 'plugin'));
  for (const name of listAt(text, 'plugins')) out.push(legacyName(name, 'plugin'));
  for (const name of listAt(text, 'extends')) {
    if (!/^(?:plugin:|eslint:|\.|\/)/.test(name)) out.push(legacyName(name, 'config'));
  }
  return out.filter((p) => p !== '');
}

// listAt is the names listed under key in a legacy config: a JSON or
// JavaScript array or string, or a YAML list or scalar ("./x" and other
// paths are not names).
function listAt(text, key) {
  const m = new RegExp(`(?:^|[\\s{,])["']?${key}["']?\\s*:[ \\t]*(\\[[^\\]]*\\]|["'][^"'\\n]*["']|\\n(?:[ \\t]*-[^\\n]*\\n?)+|[^\\n]*)`).exec(text);
  if (!m) return [];
  return (m[1].match(/(?:plugin:|eslint:)?@?[\w.-]+(?:\/[\w.-]+)*/g) ?? []).filter((t) => /^[@\w]/.test(t));
}

// legacyName is the package ESLint 8 loads for a plugin or shareable
// config named name ('' for one no package can be).
function legacyName(name, kind) {
  const prefix = 'eslint-' + kind;
  let pkg;
  if (name.startsWith('@')) {
    const [scope, rest] = name.split('/');
    pkg = rest === undefined ? `${scope}/${prefix}` : rest.startsWith(prefix) ? name : `${scope}/${prefix}-${rest}`;
  } else {
    pkg = name.startsWith(prefix + '-') || name === prefix ? name : `${prefix}-${name}`;
  }
  return packageOf(pkg) === pkg ? pkg : '';
}

serve({ describe, tasks });

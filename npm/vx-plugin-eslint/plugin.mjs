#!/usr/bin/env node
// @vzn/vx-plugin-eslint: a vx plugin (protocol 1, docs/plugins.md) that
// gives each project under an ESLint flat config a `lint` task running
// the project's own ESLint script, or `eslint .` in a workspace that has
// none, with the inputs ESLint reads. README.md says which projects get a
// task and why.
import { serve, PluginError, readOptions, readTasksRequest, readText, dirOf, within, projectPath, configChain, hasFile, hasKey, packageVersion } from './lib/kit.mjs';

// ESLint's own order of flat config names in one directory.
const CONFIGS = ['eslint.config.js', 'eslint.config.mjs', 'eslint.config.cjs', 'eslint.config.ts', 'eslint.config.mts', 'eslint.config.cts'];
// package.json too: the plugin reads the projects' scripts, and vx asks it
// again only when a file its globs match changes.
const GLOBS = ['**/eslint.config.{js,mjs,cjs,ts,mts,cts}', '**/package.json'];
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
  const scripts = new Map(projects.map((p) => [p.name, scriptsOf(wsRoot, p.root)]));
  // A workspace where some project lints through a script of its own
  // lints only those (projects "auto"): a project with none is one its
  // authors chose not to lint (an example, a fixture).
  const runs = new Map([...scripts].map(([name, s]) => [name, eslintScript(s)]));
  const scripted = opts.projects === 'auto' ? [...runs.values()].some((r) => r !== null) : opts.projects === 'scripted';
  const out = [];
  for (const p of projects) {
    const file = nearestConfig(p.root, byDir);
    if (!file) continue;
    const script = runs.get(p.name);
    if (script === null && (scripted || !hasFile(wsRoot, p.root, LINTABLE, roots))) continue;
    const chain = configChain(wsRoot, file);
    const task = lintTask(p, file, chain, opts);
    if (script) task.command = script;
    const builds = buildsLoaded(chain.packages, p.name, projects, scripts);
    if (builds.length) task.dependsOn = builds;
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

// scriptsOf is the scripts of the project's package.json ({} when it has
// none or cannot be read).
function scriptsOf(wsRoot, root) {
  const text = readText(wsRoot, root === '.' ? 'package.json' : root + '/package.json');
  try {
    const scripts = JSON.parse(text).scripts;
    return scripts !== null && typeof scripts === 'object' && !Array.isArray(scripts) ? scripts : {};
  } catch {
    return {};
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

// buildsLoaded is the builds to run before linting project self: the
// `build` of each workspace project the configs import by package name
// (a shared config or an ESLint plugin of the workspace), which Node loads
// from the entry its package.json names, usually built output. Only a
// project with a `build` script has one to wait for.
function buildsLoaded(packages, self, projects, scripts) {
  const names = new Set(packages);
  const out = [];
  for (const p of projects) {
    if (p.name === self || !names.has(p.name)) continue;
    if (typeof scripts.get(p.name).build === 'string') out.push(p.name + '#build');
  }
  return out.sort();
}

serve({ describe, tasks });

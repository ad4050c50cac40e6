#!/usr/bin/env node
// @vzn/vx-plugin-eslint: a vx plugin (protocol 1, docs/plugins.md) that
// gives each project under an ESLint flat config a `lint` task running
// `eslint .`, with the inputs ESLint reads. README.md says which projects
// count as under a config and why.
import { serve, readOptions, readTasksRequest, dirOf, within, projectPath, configChain, hasFile, hasKey, packageVersion } from './lib/kit.mjs';

// ESLint's own order of flat config names in one directory.
const CONFIGS = ['eslint.config.js', 'eslint.config.mjs', 'eslint.config.cjs', 'eslint.config.ts', 'eslint.config.mts', 'eslint.config.cts'];
const GLOBS = ['**/eslint.config.{js,mjs,cjs,ts,mts,cts}'];
// Files `eslint .` lints with a usual config: a project with none of them
// gets no task (ESLint would fail with "No files matching the pattern").
const LINTABLE = ['.js', '.mjs', '.cjs', '.jsx', '.ts', '.mts', '.cts', '.tsx'];

const OPTIONS = {
  taskName: { type: 'string', default: 'lint' },
  inputs: { type: 'strings', default: [] },
  env: { type: 'strings', default: [] },
};

// Every file of the project but Markdown, and the same of the projects it
// depends on but their tests and tool configs (rules that resolve imports
// or read types look into a dependency's sources, never into its tests or
// its own ESLint and Vite configs).
// (Kept short: a workspace of 10,000 projects answers 10,000 tasks.)
const SOURCES = ['**', '!**/*.{md,mdx}', '^**', '^!**/*.{md,mdx}', '^!**/*.{test,spec}.*', '^!**/{eslint,vite,vitest}.config.*'];

function describe(req) {
  readOptions(req.options, OPTIONS);
  return { name: 'eslint', version: packageVersion(import.meta.url), stages: ['tasks'], globs: GLOBS };
}

function tasks(req) {
  const opts = readOptions(req.options, OPTIONS);
  const { files, projects } = readTasksRequest(req);
  const byDir = configsByDir(files);
  const wsRoot = process.cwd();
  const roots = new Set(projects.map((p) => p.root));
  const out = [];
  for (const p of projects) {
    const file = nearestConfig(p.root, byDir);
    if (!file) continue;
    if (!hasFile(wsRoot, p.root, LINTABLE, roots)) continue;
    out.push(lintTask(p, file, configChain(wsRoot, file), opts));
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

serve({ describe, tasks });

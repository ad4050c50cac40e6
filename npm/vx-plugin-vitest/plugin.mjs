#!/usr/bin/env node
// @vzn/vx-plugin-vitest: a vx plugin (protocol 1, docs/plugins.md) that
// gives each project with a Vitest config a `test` task running
// `vitest run`, with the inputs Vitest reads and the coverage directory
// it writes. README.md says what it infers and why.
import path from 'node:path';
import { serve, readOptions, readTasksRequest, within, projectPath, configChain, block, blankStrings, hasKey, packageVersion, scriptsOf, loadedFromWorkspace } from './lib/kit.mjs';
import { workspaceOf, projectName, projectCommand, extraInputs } from './lib/projects.mjs';

// Vitest's own order: vitest.config.* before vite.config.*, and within
// each the extensions in this order (the first found is the one it loads).
const NAMES = ['vitest.config', 'vite.config'];
const EXTS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'];
// A project whose own script of the task's name runs another test runner
// keeps it: the tasks request gives each project's scripts, and vx asks
// the plugin again when they change, so no package.json is matched.
const GLOBS = ['**/{vitest,vite}.config.{ts,mts,cts,js,mjs,cjs}'];

const OPTIONS = {
  taskName: { type: 'string', default: 'test' },
  inputs: { type: 'strings', default: [] },
  env: { type: 'strings', default: [] },
};

// Every file of the project but Markdown and ESLint configs (Vitest loads
// neither), and the same of the projects it depends on but their tests and
// test configs (a test imports its dependencies' sources, not their tests).
// (Kept short: a workspace of 10,000 projects answers 10,000 tasks.)
const SOURCES = ['**', '!**/*.{md,mdx}', '!**/eslint.config.*'];
const DEP_SOURCES = ['^**', '^!**/*.{md,mdx}', '^!**/*.{test,spec}.*', '^!**/{eslint,vite,vitest}.config.*'];

function describe(req) {
  readOptions(req.options, OPTIONS);
  return { name: 'vitest', version: packageVersion(import.meta.url), stages: ['tasks'], globs: GLOBS };
}

function tasks(req) {
  const opts = readOptions(req.options, OPTIONS);
  const { files, projects } = readTasksRequest(req);
  const present = new Set(files);
  const wsRoot = process.cwd();
  const out = [];
  for (const p of projects) {
    const file = configOf(p.root, present);
    const script = scriptsOf(wsRoot, p)[opts.taskName];
    if (!file || testedByAnother(script)) continue;
    const chain = configChain(wsRoot, file);
    if (path.posix.basename(file).startsWith('vite.') && !hasTestBlock(chain.text)) continue;
    const ws = workspaceOf(wsRoot, p.root, file, chain);
    const task = testTask(p, file, chain, opts);
    const loaded = loadedFromWorkspace(wsRoot, chain.packages, p.name, projects);
    if (loaded.dependsOn.length) task.dependsOn = loaded.dependsOn;
    task.inputs.push(...loaded.inputs);
    if (ws && !projectOfWorkspace(wsRoot, task, p, ws)) continue;
    if (!ws && doesMore(script)) task.command = script.trim();
    out.push(task);
  }
  out.sort((a, b) => (a.project < b.project ? -1 : a.project > b.project ? 1 : 0));
  return { tasks: out };
}

// configOf is the config file Vitest loads for a project at root: the
// first of its names present in the project's directory itself.
function configOf(root, present) {
  for (const name of NAMES) {
    for (const ext of EXTS) {
      const rel = root === '.' ? name + ext : `${root}/${name}${ext}`;
      if (present.has(rel)) return rel;
    }
  }
  return '';
}

// testedByAnother: the project's own script of the task's name runs
// something other than Vitest (honojs/middleware's bun-compress: "bun
// test" beside a vitest.config.ts), which stays the project's task, as
// `pnpm -r test` runs it. No script, one that names vitest, or one that
// hands the task to Nx (typescript-eslint's "pnpm -w exec nx test", whose
// Nx target runs Vitest on this config) is not.
function testedByAnother(script) {
  return typeof script === 'string' && !/(?:^|[^\w-])vitest(?![\w-])/.test(script) && !runsNx(script);
}

// doesMore: the script runs Vitest among other commands ("tsc && vitest
// run", "vitest run && node check.js"): the task runs the script as
// written, whose other commands are part of the project's test, rather
// than Vitest alone. (Quoted text is not read for the operators.)
function doesMore(script) {
  if (typeof script !== 'string' || testedByAnother(script) || runsNx(script)) return false;
  return /&&|\|\||[;|]/.test(script.replace(/'[^']*'|"[^"]*"/g, "''"));
}

// runsNx: the script runs Nx, as a command word of its own ("nx test",
// "pnpm -w exec nx test", "npx nx run a:test"), not a word that holds it.
function runsNx(script) {
  return /(?:^|[\s;&|(])nx(?=\s|$)/.test(script);
}

// hasTestBlock: a vite.config.* (or a file it imports) has a `test:` key,
// which is where Vite's config holds Vitest's options.
function hasTestBlock(text) {
  return hasKey(text, 'test');
}

// projectOfWorkspace makes task, inferred for a project whose config
// brings in the root config ws whose test.projects covers it, run the
// project from the root config's directory: the root's Vitest, filtered
// to the project, with the root config's setup files and environment
// package among its inputs. Coverage is written under the root config's
// directory, outside the project: no output. False when the project's
// name cannot be passed on a command line (no task).
function projectOfWorkspace(wsRoot, task, p, ws) {
  task.command = projectCommand(p.root, ws.dir, projectName(wsRoot, p.root, task.file));
  if (!task.command) return false;
  const extra = extraInputs(p.root, ws.test);
  const at = task.inputs.indexOf('npm:vitest') + 1;
  task.inputs = dedupe([...task.inputs.slice(0, at), ...extra, ...task.inputs.slice(at)]);
  delete task.outputs;
  return true;
}

function testTask(p, file, chain, opts) {
  const inputs = [...SOURCES, ...DEP_SOURCES];
  // The config and what it imports: inside the project "**" has them.
  for (const f of chain.files) if (!within(p.root, f)) inputs.push(projectPath(p.root, f));
  inputs.push('/tsconfig*.json', 'npm:vitest');
  for (const pkg of chain.packages) if (pkg !== 'vitest') inputs.push('npm:' + pkg);
  inputs.push(...opts.inputs);
  const task = { project: p.name, name: opts.taskName, file, command: 'vitest run', inputs: dedupe(inputs), cache: true, env: dedupe(['CI', ...opts.env]) };
  const cov = coverageDir(chain.text);
  if (cov) {
    task.outputs = [cov + '/**'];
    // Vitest loads the coverage provider's package itself.
    task.inputs.push('npm:@vitest/coverage-' + coverageProvider(chain.text));
    // Whether coverage runs may hang on a variable: it is part of the key.
    task.env = dedupe([...task.env, ...envRead(block(block(chain.text, 'test'), 'coverage'))]);
  }
  return task;
}

// coverageProvider is the config's coverage provider, v8 by default.
function coverageProvider(text) {
  const m = /(?:^|[^\w$.])provider\s*:\s*(['"`])(v8|istanbul)\1/.exec(block(block(text, 'test'), 'coverage'));
  return m ? m[2] : 'v8';
}

// coverageDir is the project-relative directory Vitest writes coverage to
// when the config may enable it: coverage.enabled set to anything but
// false (true, or an expression such as !!process.env.CI, which vx cannot
// evaluate: declaring an output a run may not write costs nothing, leaving
// out one it writes loses it on a cache hit). '' when coverage is off or
// the directory is outside the project (vx keeps outputs inside it).
function coverageDir(text) {
  const cov = block(block(text, 'test'), 'coverage');
  const enabled = /(?:^|[^\w$.])enabled\s*:\s*([^,}\s][^,}]*)/.exec(blankStrings(cov));
  if (!enabled || /^false\s*$/.test(enabled[1])) return '';
  const m = /(?:^|[^\w$.])reportsDirectory\s*:\s*(['"`])([^'"`\n]+)\1/.exec(cov);
  const dir = path.posix.normalize(m ? m[2] : 'coverage').replace(/\/$/, '');
  if (dir === '.' || dir.startsWith('..') || dir.startsWith('/')) return '';
  return dir;
}

// envRead lists the variables code reads as process.env.NAME or
// process.env['NAME'].
function envRead(code) {
  const names = [];
  const read = /\bprocess\.env(?:\.([A-Za-z_]\w{0,127})|\[\s*(['"`])([A-Za-z_]\w{0,127})\2\s*\])(?![\w$])/g;
  for (const m of code.matchAll(read)) names.push(m[1] ?? m[3]);
  return names;
}

function dedupe(list) {
  return [...new Set(list)];
}

serve({ describe, tasks });

#!/usr/bin/env node
// The reference vx plugin: a complete client of the plugin protocol
// (docs/plugins.md) with no dependencies. It infers one task for each
// project holding a vx-ref.json ({"command": "...", "outputs": [...]}) and
// adds one read-only verb, "tasks-of", listing a project's tasks.
//
// Options (vx.workspace.json):
//   taskName  the inferred task's name (default "ref")
//   log       a workspace-relative file this plugin appends the stage to on
//             each start (tests use it to see whether vx started it)
import { readFileSync, appendFileSync } from "node:fs";

const PROTOCOL = 1;

function readStdin() {
  // fd 0 is read whole: vx writes one request and closes it.
  return readFileSync(0, "utf8");
}

function answer(obj) {
  process.stdout.write(JSON.stringify({ protocol: PROTOCOL, ...obj }));
}

function fail(msg) {
  process.stderr.write(`vx-plugin-reference: ${msg}\n`);
  process.exit(1);
}

function describe() {
  answer({
    name: "reference",
    version: "1.0.0",
    stages: ["tasks", "commands"],
    globs: ["**/vx-ref.json"],
    commands: [
      {
        name: "tasks-of",
        summary: "list the tasks of one project, with the plugin that inferred each",
        readOnly: true,
        inputSchema: {
          type: "object",
          properties: { project: { type: "string", description: "a project name" } },
          required: ["project"],
          additionalProperties: false,
        },
      },
    ],
  });
}

function tasks(req, opts) {
  const name = opts.taskName || "ref";
  const out = [];
  for (const file of req.files) {
    // A project's root is workspace-relative; the workspace root's own
    // project has root ".".
    const dir = file.includes("/") ? file.slice(0, file.lastIndexOf("/")) : ".";
    const project = req.projects.find((p) => p.root === dir);
    if (!project) continue; // a vx-ref.json outside any project's root
    const decl = JSON.parse(readFileSync(file, "utf8"));
    const t = { project: project.name, name, file, command: decl.command, inputs: ["**/*"] };
    if (decl.outputs) t.outputs = decl.outputs;
    if (decl.dependsOn) t.dependsOn = decl.dependsOn;
    out.push(t);
  }
  answer({ tasks: out });
}

function command(req) {
  if (req.command !== "tasks-of") fail(`no command ${req.command}`);
  // From the command line the project is the first argument; from MCP
  // it is the input object's "project".
  const project = (req.input && req.input.project) || (req.args || [])[0];
  if (!project) fail("name a project: vx tasks-of <project>");
  const list = req.workspace.tasks.filter((t) => t.project === project);
  const lines = list.map((t) => `${t.project}#${t.name}\t${t.command}${t.plugin ? `\t(${t.plugin})` : ""}`);
  answer({ output: lines.join("\n") + (lines.length ? "\n" : ""), result: { project, tasks: list } });
}

const req = JSON.parse(readStdin());
if (req.protocol !== PROTOCOL) fail(`protocol ${req.protocol} is not ${PROTOCOL}`);
const opts = req.options || {};
if (opts.log) appendFileSync(opts.log, `${req.stage}\n`);
switch (req.stage) {
  case "describe": describe(); break;
  case "tasks": tasks(req, opts); break;
  case "command": command(req); break;
  default: fail(`unknown stage ${req.stage}`);
}

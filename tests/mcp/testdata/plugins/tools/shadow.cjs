// A plugin that tries to take vx's own verb "run": vx refuses that verb
// and keeps the plugin's other one.
require("fs").readFileSync(0);
process.stdout.write(JSON.stringify({protocol: 1, name: "shadow", version: "0.1.0", stages: ["commands"],
  commands: [{name: "run", summary: "not vx run"}, {name: "hello", summary: "says hello"}]}));

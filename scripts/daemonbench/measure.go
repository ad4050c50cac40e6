package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

type bench struct {
	o       options
	ws      string
	d       *daemon
	rep     *report
	project string // the project listTasks and vx show narrow to

	vxd         *mcpClient
	listSamples samples
	listAns     []byte // listTasks' structuredContent
}

// target is one server call measured in interleaved rounds.
type target struct {
	name string
	call func() (time.Duration, int, error)
	s    samples
	pid  int // the server process, for serverCost
}

// rounds warms every target up, then measures n calls of each, in five
// interleaved rounds.
func rounds(ts []*target, warm, n int) error {
	for _, t := range ts {
		for i := 0; i < warm; i++ {
			if _, _, err := t.call(); err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
		}
	}
	const k = 5
	for r := 0; r < k; r++ {
		for _, t := range ts {
			for i := 0; i < n/k; i++ {
				d, size, err := t.call()
				if err != nil {
					return fmt.Errorf("%s: %w", t.name, err)
				}
				t.s.add(d)
				t.s.bytes = size
			}
		}
	}
	return nil
}

func toolTarget(name string, c *mcpClient, tool string, args any, check func(*toolResult) error) *target {
	return &target{name: name, call: func() (time.Duration, int, error) {
		tr, d, size, err := c.tool(tool, args)
		if err == nil && check != nil {
			err = check(tr)
		}
		return d, size, err
	}}
}

func (b *bench) listTasks() error {
	logf("listTasks against the floor and the Go SDK")
	kids := map[string]*child{}
	for _, k := range []string{"floor", "sdk", "sdk-json"} {
		c, err := startChild(k)
		if err != nil {
			return err
		}
		defer c.stop()
		kids[k] = c
	}
	floor := newMCPClient(kids["floor"].url, "")
	floorReq := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ok","arguments":{}}}`)
	sdk := newMCPClient(kids["sdk"].url, "")
	sdkJSON := newMCPClient(kids["sdk-json"].url, "")
	b.vxd = newMCPClient(b.d.url, b.d.token)
	for _, c := range []*mcpClient{sdk, sdkJSON, b.vxd} {
		if err := c.initialize(); err != nil {
			return fmt.Errorf("%s: %w", c.url, err)
		}
	}
	project := b.project
	tFloor := &target{name: "floor", call: func() (time.Duration, int, error) {
		_, body, d, err := floor.do(floor.post(floorReq))
		return d, len(body), err
	}}
	tSDK := toolTarget("sdk", sdk, "ok", map[string]any{}, nil)
	tSDKJSON := toolTarget("sdk-json", sdkJSON, "ok", map[string]any{}, nil)
	tPing := &target{name: "vxd ping", pid: b.d.pid, call: func() (time.Duration, int, error) {
		_, d, size, err := b.vxd.call("ping", map[string]any{})
		return d, size, err
	}}
	tList := toolTarget("listTasks", b.vxd, "listTasks", map[string]any{"project": project}, b.checkListTasks)
	tList.pid = b.d.pid
	tSame, stopSame, err := b.sameBytesFloor(project)
	if err != nil {
		return err
	}
	defer stopSame()
	// listTasks is measured twice: in the rounds of blocks with the floor
	// and the SDK (what it is compared with there), and paired call by
	// call with the same-bytes handler (the tool-call ratio). A server
	// answering every other call is colder than one answering a block,
	// so the two kinds of p50 are not compared with each other.
	tBlock := toolTarget("listTasks", b.vxd, "listTasks", map[string]any{"project": project}, b.checkListTasks)
	tBlock.pid = b.d.pid
	ts := []*target{tFloor, tSDK, tSDKJSON, tPing, tBlock}
	if err := rounds(ts, 200, b.o.calls); err != nil {
		return err
	}
	pr, err := pairRounds(tList, tSame, 200, b.o.pairRounds, b.o.calls/b.o.pairRounds)
	if err != nil {
		return err
	}
	b.listSamples = tBlock.s
	return b.reportListTasks(tFloor, tSDK, tSDKJSON, tPing, tBlock, tList, tSame, pr)
}

// reportListTasks adds the rows comparing warm listTasks with the floor,
// the Go SDK and a bare handler answering the same bytes, and the
// servers' CPU per call.
func (b *bench) reportListTasks(tFloor, tSDK, tSDKJSON, tPing, tBlock, tList, tSame *target, pr *pairResult) error {
	sdkP50, sdkJSONP50, listP50 := tSDK.s.pct(50), tSDKJSON.s.pct(50), tBlock.s.pct(50)
	n := fmt.Sprint(b.o.calls)
	r := b.rep
	r.add(row{"bare net/http handler, small JSON (floor)", n, ms(tFloor.s.pct(50)), ms(tFloor.s.pct(99)), fmt.Sprintf("%d B answer", tFloor.s.bytes), "", ""})
	r.add(row{"go-sdk v1.8.0 trivial tool, tools/call (default: SSE answer)", n, ms(sdkP50), ms(tSDK.s.pct(99)), fmt.Sprintf("%d B answer", tSDK.s.bytes), "", ""})
	r.add(row{"go-sdk v1.8.0 trivial tool, tools/call (JSONResponse)", n, ms(sdkJSONP50), ms(tSDKJSON.s.pct(99)), fmt.Sprintf("%d B answer", tSDKJSON.s.bytes), "", ""})
	r.add(row{"vxd ping (transport + session, no tool)", n, ms(tPing.s.pct(50)), ms(tPing.s.pct(99)), fmt.Sprintf("%d B answer", tPing.s.bytes), "", ""})
	ratio := float64(listP50) / float64(sdkP50)
	ratioJSON := float64(listP50) / float64(sdkJSONP50)
	r.add(row{fmt.Sprintf("vxd listTasks project=%s (warm, in the blocks)", b.project), n, ms(listP50), ms(tBlock.s.pct(99)),
		fmt.Sprintf("%d B answer; p50 = %.2f× floor, %.2f× vxd ping", tBlock.s.bytes, float64(listP50)/float64(tFloor.s.pct(50)), float64(listP50)/float64(tPing.s.pct(50))), "", ""})
	b.reportPair(tList, tSame, pr)
	b.reportCost(tSame, tList, tPing)
	r.add(row{"↳ listTasks p50 ÷ SDK trivial tool p50 (SDK default)", "", fmt.Sprintf("%.2f×", ratio), "", "", "≤ 0.6×", r.check(ratio <= 0.6)})
	r.add(row{"↳ listTasks p50 ÷ SDK trivial tool p50 (SDK with JSONResponse)", "", fmt.Sprintf("%.2f×", ratioJSON), "", "the stricter reading", "≤ 0.6×", r.check(ratioJSON <= 0.6)})
	return nil
}

// checkListTasks keeps listTasks' answer (for the same-bytes handler) and
// checks it names the one project asked for, with its two tasks.
func (b *bench) checkListTasks(tr *toolResult) error {
	project := b.project
	b.listAns = tr.StructuredContent
	var out struct {
		Projects []struct {
			Name  string `json:"name"`
			Tasks []any  `json:"tasks"`
		} `json:"projects"`
	}
	if err := json.Unmarshal(tr.StructuredContent, &out); err != nil {
		return err
	}
	if len(out.Projects) != 1 || out.Projects[0].Name != project || len(out.Projects[0].Tasks) != 2 {
		return fmt.Errorf("listTasks answered %.300s", tr.StructuredContent)
	}
	return nil
}

func (b *bench) coldShow() error {
	logf("cold vx show processes")
	var s samples
	var out []byte
	for i := 0; i < b.o.coldRuns+2; i++ {
		cmd := exec.Command(b.o.vx, "show", "--filter", b.project, "--format", "json")
		cmd.Dir = b.ws
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		t0 := time.Now()
		err := cmd.Run()
		d := time.Since(t0)
		if err != nil {
			return fmt.Errorf("vx show: %w: %s", err, stderr.Bytes())
		}
		if i >= 2 { // two warm-ups: the page cache holds the workspace
			s.add(d)
		}
		out = stdout.Bytes()
	}
	same, err := sameAnswer(out, b.listAns)
	if err != nil {
		return fmt.Errorf("comparing vx show with listTasks: %w", err)
	}
	speedup := float64(s.pct(50)) / float64(b.listSamples.pct(50))
	note := fmt.Sprintf("whole process; %d B; same projects/root/global as listTasks: %v; cold p50 ÷ listTasks p50 = %.0f×", len(out), same, speedup)
	b.rep.add(row{fmt.Sprintf("cold `vx show --filter %s --format json`", b.project), fmt.Sprint(b.o.coldRuns), ms(s.pct(50)), ms(s.pct(99)), note,
		"listTasks ≥ 20× faster", b.rep.check(speedup >= 20 && same)})
	return nil
}

func (b *bench) history(why0 whyTarget) func() error {
	return func() error {
		logf("history tools (why target %s)", why0.TaskID)
		c := b.vxd
		var failures struct {
			RunID    string `json:"runId"`
			Found    bool   `json:"found"`
			Failures []struct {
				TaskID    string `json:"taskId"`
				Output    string `json:"output"`
				Locations []any  `json:"locations"`
			} `json:"failures"`
			Blocked []string `json:"blocked"`
		}
		var why struct {
			Changed bool   `json:"changed"`
			Summary string `json:"summary"`
			Roots   []any  `json:"roots"`
		}
		var hist struct {
			Limit  int   `json:"limit"`
			Recent []any `json:"recent"`
			Tasks  []any `json:"tasks"`
		}
		tHist := toolTarget("getRunHistory", c, "getRunHistory", map[string]any{"limit": 50}, func(tr *toolResult) error {
			if err := json.Unmarshal(tr.StructuredContent, &hist); err != nil {
				return err
			}
			if len(hist.Recent) != 50 {
				return fmt.Errorf("getRunHistory gave %d recent rows", len(hist.Recent))
			}
			return nil
		})
		tFail := toolTarget("getFailures", c, "getFailures", map[string]any{}, func(tr *toolResult) error {
			if err := json.Unmarshal(tr.StructuredContent, &failures); err != nil {
				return err
			}
			if !failures.Found || len(failures.Failures) == 0 {
				return fmt.Errorf("getFailures found no failed task: %.300s", tr.StructuredContent)
			}
			return nil
		})
		tWhy := toolTarget("whyDidThisRerun", c, "whyDidThisRerun", map[string]any{"taskId": why0.TaskID}, func(tr *toolResult) error {
			if err := json.Unmarshal(tr.StructuredContent, &why); err != nil {
				return err
			}
			if !why.Changed {
				return fmt.Errorf("whyDidThisRerun says the key did not change: %.300s", tr.StructuredContent)
			}
			return nil
		})
		tHistP := toolTarget("getRunHistory project", c, "getRunHistory", map[string]any{"project": b.project, "limit": 50}, nil)
		if err := rounds([]*target{tHist, tFail, tWhy, tHistP}, 20, b.o.historyCalls); err != nil {
			return err
		}
		n := fmt.Sprint(b.o.historyCalls)
		r := b.rep
		r.add(row{"getRunHistory limit=50", n, ms(tHist.s.pct(50)), ms(tHist.s.pct(99)),
			fmt.Sprintf("%d B; %d recent rows, stats of %d tasks", tHist.s.bytes, len(hist.Recent), len(hist.Tasks)), "p50 ≤ 20 ms", r.check(tHist.s.pct(50) <= 20*time.Millisecond)})
		r.add(row{fmt.Sprintf("getRunHistory project=%s limit=50 (for comparison)", b.project), n, ms(tHistP.s.pct(50)), ms(tHistP.s.pct(99)),
			fmt.Sprintf("%d B", tHistP.s.bytes), "", ""})
		if note, err := historyPhases(context.Background(), b.ws); err == nil {
			r.notes = append(r.notes, note)
		} else {
			r.notes = append(r.notes, "timing getRunHistory's phases failed: "+err.Error())
		}
		outBytes, locs := 0, 0
		for _, f := range failures.Failures {
			outBytes += len(f.Output)
			locs += len(f.Locations)
		}
		r.add(row{"getFailures (latest failed run)", n, ms(tFail.s.pct(50)), ms(tFail.s.pct(99)),
			fmt.Sprintf("%d B; run %s: %d failed (%d B output, %d locations), %d blocked", tFail.s.bytes, failures.RunID, len(failures.Failures), outBytes, locs, len(failures.Blocked)),
			"p50 ≤ 20 ms", r.check(tFail.s.pct(50) <= 20*time.Millisecond)})
		r.add(row{fmt.Sprintf("whyDidThisRerun %s", why0.TaskID), n, ms(tWhy.s.pct(50)), ms(tWhy.s.pct(99)),
			fmt.Sprintf("%d B; %d root(s); %q", tWhy.s.bytes, len(why.Roots), why.Summary), "p50 ≤ 10 ms", r.check(tWhy.s.pct(50) <= 10*time.Millisecond)})
		return nil
	}
}

func (b *bench) configEdits() error {
	logf("config edits")
	cfg := filepath.Join(b.ws, "vx.workspace.json")
	var s, reloads samples
	misses := 0
	const limit = 5 * time.Second
	for i := 0; i < b.o.edits; i++ {
		task := fmt.Sprintf("edit%d", i)
		args := map[string]any{"target": b.project + "#" + task}
		if _, _, _, err := b.vxd.tool("getConfig", args); err == nil {
			return fmt.Errorf("getConfig shows %s before the edit", task)
		}
		t0 := time.Now()
		if err := os.WriteFile(cfg, workspaceConfig(task), 0o644); err != nil {
			return err
		}
		for k := 1; ; k++ {
			_, _, _, err := b.vxd.tool("getConfig", args)
			if err == nil {
				s.add(time.Since(t0))
				break
			}
			var te *toolError
			if !errors.As(err, &te) {
				return err
			}
			if time.Since(t0) > limit {
				s.add(time.Since(t0))
				misses++
				break
			}
			time.Sleep(time.Until(t0.Add(time.Duration(k) * 5 * time.Millisecond)))
		}
		if ms, err := b.d.lastReloadMs(); err == nil {
			reloads.add(time.Duration(ms) * time.Millisecond)
		}
		time.Sleep(150 * time.Millisecond) // let the watcher settle
	}
	note := fmt.Sprintf("edit = os.WriteFile of vx.workspace.json adding a task; polled getConfig PROJECT#TASK every 5 ms; max %s; "+
		"vxd's own reload (status lastReload.durationMs) p50 %s, p99 %s, after a %s debounce", ms(s.pct(100)), ms(reloads.pct(50)), ms(reloads.pct(99)), "40 ms")
	if d, err := loadTime(b.ws, 10); err == nil {
		note += fmt.Sprintf("; workspace.Load of this workspace in the benchmark process p50 %s", ms(d))
	}
	if misses > 0 {
		note += fmt.Sprintf("; %d edits not visible within %s", misses, limit)
	}
	b.rep.add(row{"config edit visible to getConfig", fmt.Sprint(b.o.edits), ms(s.pct(50)), ms(s.pct(99)), note,
		"p99 ≤ 200 ms", b.rep.check(s.pct(99) <= 200*time.Millisecond && misses == 0)})
	return nil
}

func (b *bench) memory() error {
	st, err := b.d.status()
	if err != nil {
		return err
	}
	rss, _ := st["rssBytes"].(float64)
	heap, _ := st["heapBytes"].(float64)
	note := fmt.Sprintf("vxd status rssBytes after every measurement; heap %s, peak RSS (VmHWM) %s, %v projects",
		mib(int64(heap)), mib(procStatus(b.d.pid, "VmHWM")), st["projects"])
	b.rep.add(row{"vxd RSS", "1", mib(int64(rss)), "", note, "≤ 60 MiB", b.rep.check(rss <= 60<<20)})
	return nil
}

func (b *bench) idleCPU() error {
	logf("idle CPU over %s", b.o.idle)
	time.Sleep(2 * time.Second) // past any debounce or reload
	t0, err := cpuTicks(b.d.pid)
	if err != nil {
		return err
	}
	_, w0 := wakeups(b.d.pid)
	time.Sleep(b.o.idle)
	t1, err := cpuTicks(b.d.pid)
	if err != nil {
		return err
	}
	threads, w1 := wakeups(b.d.pid)
	note := fmt.Sprintf("utime+stime from /proc/PID/stat (1 tick = 10 ms), one MCP session open; %d context switches across %d threads", w1-w0, threads)
	b.rep.add(row{fmt.Sprintf("vxd CPU while idle for %s", b.o.idle), "1", fmt.Sprintf("%d ticks", t1-t0), "", note, "≈ 0 (no polling)", b.rep.check(t1-t0 <= 1)})
	return nil
}

// sameBytesFloor records the HTTP body vxd answers to listTasks and starts
// a bare net/http handler answering exactly those bytes: the floor of the
// tool-call ratio.
func (b *bench) sameBytesFloor(project string) (*target, func(), error) {
	args, err := json.Marshal(map[string]any{"name": "listTasks", "arguments": map[string]any{"project": project}})
	if err != nil {
		return nil, nil, err
	}
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + string(args) + `}`)
	_, body, _, err := b.vxd.do(b.vxd.post(req))
	if err != nil {
		return nil, nil, fmt.Errorf("recording listTasks' answer: %w", err)
	}
	f, err := os.CreateTemp("", "daemonbench-listtasks-*.json")
	if err != nil {
		return nil, nil, err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(body); err != nil {
		f.Close()
		return nil, nil, err
	}
	if err := f.Close(); err != nil {
		return nil, nil, err
	}
	c, err := startChild("floor-file=" + f.Name())
	if err != nil {
		return nil, nil, err
	}
	// The same request, headers included (token, session, revision),
	// which net/http reads whether or not the handler looks at them.
	cl := newMCPClient(c.url, b.vxd.token)
	cl.session, cl.version = b.vxd.session, b.vxd.version
	t := &target{name: "floor, same bytes", pid: c.cmd.Process.Pid, call: func() (time.Duration, int, error) {
		_, got, d, err := cl.do(cl.post(req))
		return d, len(got), err
	}}
	return t, c.stop, nil
}

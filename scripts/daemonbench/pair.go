package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// pairResult is the tool-call ratio measured call by call: vxd's listTasks
// and the bare handler answering the same bytes take turns (a b b a ...),
// so that both see the same moment of the machine's load, in rounds whose
// own ratio of p50s gives the spread.
type pairResult struct {
	rounds   int
	perRound int
	ratios   []float64 // each round's p50(a) ÷ p50(b), sorted
}

// pairRounds warms both targets up, then measures k rounds of n calls of
// each, alternating one call of a and one of b (the order swapped every
// pair so that neither always follows the other).
func pairRounds(a, b *target, warm, k, n int) (*pairResult, error) {
	res, err := interleave([]*target{a, b}, warm, k, n)
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

// interleave measures k rounds of n calls of each target, one call of each
// in turn (the order rotated every turn: a b, b a; or a b c, b c a, c a b), and returns for every target but
// the last its rounds' p50 ratios to the last one's.
func interleave(ts []*target, warm, k, n int) ([]*pairResult, error) {
	for i := 0; i < warm; i++ {
		for _, t := range ts {
			if _, _, err := t.call(); err != nil {
				return nil, fmt.Errorf("%s: %w", t.name, err)
			}
		}
	}
	out := make([]*pairResult, len(ts)-1)
	for i := range out {
		out[i] = &pairResult{rounds: k, perRound: n}
	}
	for r := 0; r < k; r++ {
		round := make([]samples, len(ts))
		for i := 0; i < n; i++ {
			for j := range ts {
				x := (i + j) % len(ts)
				t := ts[x]
				d, size, err := t.call()
				if err != nil {
					return nil, fmt.Errorf("%s: %w", t.name, err)
				}
				t.s.add(d)
				t.s.bytes = size
				round[x].add(d)
			}
		}
		last := round[len(ts)-1].pct(50)
		for i := range out {
			out[i].ratios = append(out[i].ratios, float64(round[i].pct(50))/float64(last))
		}
	}
	for _, p := range out {
		slices.Sort(p.ratios)
	}
	return out, nil
}

// median is the median of the rounds' ratios.
func (p *pairResult) median() float64 {
	n := len(p.ratios)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return p.ratios[n/2]
	}
	return (p.ratios[n/2-1] + p.ratios[n/2]) / 2
}

// spread names the rounds' ratios, lowest to highest.
func (p *pairResult) spread() string {
	parts := make([]string, len(p.ratios))
	for i, r := range p.ratios {
		parts[i] = fmt.Sprintf("%.2f", r)
	}
	return strings.Join(parts, " ")
}

// ratioOnly is the -ratio-only run: vxd's warm listTasks against the bare
// handler answering its bytes, paired call by call, and the CPU per call
// of both servers (and of vxd's ping), nothing else. With -vxd-b a second
// vxd, on a copy of the workspace, takes its turn in the same rounds.
func (b *bench) ratioOnly() error {
	logf("tool-call ratio only: %d rounds of %d paired calls", b.o.pairRounds, b.o.calls/b.o.pairRounds)
	b.vxd = newMCPClient(b.d.url, b.d.token)
	if err := b.vxd.initialize(); err != nil {
		return err
	}
	tList := toolTarget("listTasks", b.vxd, "listTasks", map[string]any{"project": b.project}, b.checkListTasks)
	tList.pid = b.d.pid
	tSame, stopSame, err := b.sameBytesFloor(b.project)
	if err != nil {
		return err
	}
	defer stopSame()
	tPing := &target{name: "vxd ping", pid: b.d.pid, call: func() (time.Duration, int, error) {
		_, d, size, err := b.vxd.call("ping", map[string]any{})
		return d, size, err
	}}
	if b.o.vxdB != "" {
		return b.ratioAB(tList, tSame)
	}
	pr, err := pairRounds(tList, tSame, 200, b.o.pairRounds, b.o.calls/b.o.pairRounds)
	if err != nil {
		return err
	}
	b.reportPair(tList, tSame, pr)
	b.reportCost(tSame, tList, tPing)
	return nil
}

// ratioAB serves -vxd-b on a copy of the workspace and measures both
// vxds' listTasks and the same-bytes handler in one set of rounds.
func (b *bench) ratioAB(tList, tSame *target) error {
	wsB := b.ws + "-b"
	if err := os.RemoveAll(wsB); err != nil {
		return err
	}
	if out, err := exec.Command("cp", "-a", b.ws, wsB).CombinedOutput(); err != nil {
		return fmt.Errorf("copying the workspace for -vxd-b: %v: %s", err, out)
	}
	dB, err := startDaemon(context.Background(), b.o.vxdB, wsB)
	if err != nil {
		return err
	}
	defer dB.stop()
	cB := newMCPClient(dB.url, dB.token)
	if err := cB.initialize(); err != nil {
		return err
	}
	tB := toolTarget("listTasks (B)", cB, "listTasks", map[string]any{"project": b.project}, nil)
	tB.pid = dB.pid
	res, err := interleave([]*target{tList, tB, tSame}, 200, b.o.pairRounds, b.o.calls/b.o.pairRounds)
	if err != nil {
		return err
	}
	r := b.rep
	n := fmt.Sprint(b.o.calls)
	for i, t := range []*target{tList, tB} {
		bin := []string{b.o.vxd, b.o.vxdB}[i]
		r.add(row{fmt.Sprintf("listTasks, vxd %s (%s)", "AB"[i:i+1], bin), n, ms(t.s.pct(50)), ms(t.s.pct(99)),
			fmt.Sprintf("÷ same-bytes handler: median %.2f× (rounds %s)", res[i].median(), res[i].spread()), "", ""})
	}
	r.add(row{"bare net/http handler answering listTasks' bytes", n, ms(tSame.s.pct(50)), ms(tSame.s.pct(99)), fmt.Sprintf("%d B answer", tSame.s.bytes), "", ""})
	costs, err := serverCost([]*target{tList, tB, tSame}, 1000)
	if err != nil {
		return err
	}
	r.add(row{"server CPU per call (A, B, handler)", "1000", "", "", fmt.Sprintf("%s (%.2f on a CPU), %s (%.2f), %s (%.2f)",
		us(costs[0].cpu), costs[0].slicesPer, us(costs[1].cpu), costs[1].slicesPer, us(costs[2].cpu), costs[2].slicesPer), "", ""})
	r.summary = append(r.summary, fmt.Sprintf("A/B: listTasks ÷ same-bytes handler, median of %d rounds: A %.2f×, B %.2f×; CPU per call A %s, B %s, handler %s (load %s).",
		b.o.pairRounds, res[0].median(), res[1].median(), us(costs[0].cpu), us(costs[1].cpu), us(costs[2].cpu), loadavg()))
	return nil
}

// reportPair adds the rows of the paired tool-call ratio.
func (b *bench) reportPair(tList, tSame *target, pr *pairResult) {
	r := b.rep
	n := fmt.Sprint(pr.rounds * pr.perRound)
	r.add(row{fmt.Sprintf("**vxd listTasks project=%s** (warm, paired)", b.project), n, ms(tList.s.pct(50)), ms(tList.s.pct(99)),
		fmt.Sprintf("%d B answer", tList.s.bytes), "", ""})
	r.add(row{"bare net/http handler answering listTasks' bytes (paired)", n, ms(tSame.s.pct(50)), ms(tSame.s.pct(99)),
		fmt.Sprintf("%d B answer (vxd's listTasks body, recorded)", tSame.s.bytes), "", ""})
	med := pr.median()
	verdict := r.check(med <= 1.3)
	r.add(row{"↳ tool-call ratio, median of the rounds' p50 ratios", fmt.Sprintf("%d×%d", pr.rounds, pr.perRound), fmt.Sprintf("%.2f×", med), "",
		fmt.Sprintf("calls alternate one by one; rounds' ratios %s; pooled p50s %.2f×", pr.spread(), float64(tList.s.pct(50))/float64(tSame.s.pct(50))), "≤ 1.3×", verdict})
	r.summary = append(r.summary, fmt.Sprintf("Tool-call ratio: warm listTasks p50 %s ÷ a bare net/http "+
		"handler answering the same bytes %s, paired call by call: median of %d rounds %.2f× (rounds %.2f–%.2f; target "+
		"≤ 1.3×: %s; load %s).",
		ms(tList.s.pct(50)), ms(tSame.s.pct(50)), pr.rounds, med, pr.ratios[0], pr.ratios[len(pr.ratios)-1], verdict, loadavg()))
}

// reportCost adds the row of the servers' CPU per call.
func (b *bench) reportCost(tSame, tList, tPing *target) {
	r := b.rep
	costs, err := serverCost([]*target{tSame, tList}, 1000)
	var pingCost []cost
	if err == nil {
		pingCost, err = serverCost([]*target{tPing}, 1000)
	}
	if err != nil {
		r.notes = append(r.notes, "reading the servers' CPU per call failed: "+err.Error())
		return
	}
	same, list, ping := costs[0], costs[1], pingCost[0]
	r.add(row{"↳ server CPU per call: listTasks ÷ that handler", fmt.Sprint(list.calls), fmt.Sprintf("%.2f×", float64(list.cpu)/float64(same.cpu)), "",
		fmt.Sprintf("/proc/PID/task/*/schedstat around the calls (listTasks and the handler in turns): vxd listTasks %s and %.2f times on a CPU per call, vxd ping %s and %.2f, the handler %s and %.2f",
			us(list.cpu), list.slicesPer, us(ping.cpu), ping.slicesPer, us(same.cpu), same.slicesPer), "", ""})
}

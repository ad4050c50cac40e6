package main

import (
	"bytes"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/vzn/vx/protocol/wire"
)

// flood reads vxd's memory while it is fed what a client may send (the
// bounds of docs/mcp.md and docs/vxd.md): a listTasks for every project
// and 300 naming all projects but one (more distinct answers, and more
// bytes of them, than the memo keeps), a 10,000-entry batch
// (refused whole), batches of 100 whole-workspace listTasks eight at once
// on sessions of their own, and 300 idle connections (128 served at once).
// Each row is VmRSS after the phase and VmHWM, the peak so far.
func (b *bench) flood() error {
	logf("memory under load: distinct listTasks, batches, connections")
	b.phase("after the measurements above")
	if err := b.distinctListTasks(); err != nil {
		return err
	}
	if err := b.batchFlood(); err != nil {
		return err
	}
	b.phase(fmt.Sprintf("with %d idle connections open", b.idleConnections(300)))
	hwm := procStatus(b.d.pid, "VmHWM")
	verdict := "met"
	if hwm > 60<<20 {
		verdict = "**missed**"
	}
	b.rep.summary = append(b.rep.summary, fmt.Sprintf("vxd peak RSS (VmHWM) over the whole run, floods included: %s with %d projects (target ≤ 60 MiB: %s).", mib(hwm), b.o.projects, verdict))
	return nil
}

func mib(x int64) string { return fmt.Sprintf("%.1f MiB", float64(x)/(1<<20)) }

// phase records vxd's memory now, against the 60 MiB bound.
func (b *bench) phase(name string) {
	rss, hwm := procStatus(b.d.pid, "VmRSS"), procStatus(b.d.pid, "VmHWM")
	b.rep.add(row{"vxd memory " + name, "1", mib(rss), "", fmt.Sprintf("VmRSS after; peak (VmHWM) so far %s", mib(hwm)), "peak ≤ 60 MiB", b.rep.check(hwm <= 60<<20)})
}

// distinctListTasks asks listTasks once per project, then 300 large
// answers that all differ (more than the memo keeps).
func (b *bench) distinctListTasks() error {
	for i := 0; i < b.o.projects; i++ {
		if _, _, _, err := b.vxd.tool("listTasks", map[string]any{"project": projectName(i)}); err != nil {
			return err
		}
	}
	b.phase(fmt.Sprintf("after %d listTasks, one per project", b.o.projects))
	names := make([]string, b.o.projects)
	for i := range names {
		names[i] = projectName(i)
	}
	const distinct = 300
	for i := 0; i < distinct; i++ {
		filter := append(append([]string{}, names[:i%len(names)]...), names[i%len(names)+1:]...)
		if _, _, _, err := b.vxd.tool("listTasks", map[string]any{"filter": filter}); err != nil {
			return err
		}
	}
	b.phase(fmt.Sprintf("after %d listTasks, each filtering all projects but one", distinct))
	return nil
}

// batchFlood sends a 10,000-entry batch (which must be refused), then 8
// batches of 100 whole-workspace listTasks at once.
func (b *bench) batchFlood() error {
	c := newMCPClient(b.d.url, b.d.token)
	if err := c.initializeAt("2025-03-26"); err != nil { // the revision with batches
		return err
	}
	if _, body, _, err := c.do(c.post(listBatch(10000, 0))); err != nil || !bytes.Contains(body, []byte("at most")) {
		return fmt.Errorf("a 10,000-entry batch was not refused: %v %.200s", err, body)
	}
	b.phase("after a 10,000-entry batch (refused)")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	size := 0
	var mu sync.Mutex
	for k := 0; k < 8; k++ {
		wg.Go(func() {
			c := newMCPClient(b.d.url, b.d.token)
			if err := c.initializeAt("2025-03-26"); err != nil {
				errs <- err
				return
			}
			_, body, _, err := c.do(c.post(listBatch(100, k*1000)))
			if err == nil && !bytes.HasPrefix(body, []byte("[")) {
				err = fmt.Errorf("a batch of 100 listTasks answered %.200s", body)
			}
			if err != nil {
				errs <- err
			}
			mu.Lock()
			size = len(body)
			mu.Unlock()
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	b.phase(fmt.Sprintf("after 8 batches at once of 100 whole-workspace listTasks (%s each)", mib(int64(size))))
	return nil
}

// idleConnections opens up to n idle TCP connections to vxd, holds them a
// second and closes them; it returns how many the kernel let open.
func (b *bench) idleConnections(n int) int {
	host := strings.TrimSuffix(strings.TrimPrefix(b.d.url, "http://"), wire.MCPPath)
	var conns []net.Conn
	for i := 0; i < n; i++ {
		cn, err := net.Dial("tcp", host)
		if err != nil {
			break // the kernel's queue is full: what the cap is for
		}
		conns = append(conns, cn)
	}
	time.Sleep(time.Second)
	for _, cn := range conns {
		cn.Close()
	}
	return len(conns)
}

// listBatch is a batch of n whole-workspace listTasks with ids from first.
func listBatch(n, first int) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"listTasks","arguments":{}}}`, first+i+1)
	}
	b.WriteByte(']')
	return b.Bytes()
}

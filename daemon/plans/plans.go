// Package plans keeps vxd's plans: what planTasks planned, against which
// state of the workspace (the prerequisites), until when. runTasks
// {planId} claims a plan, re-checks every prerequisite and runs exactly
// the planned selection, or refuses naming what moved. Plans live only in
// the daemon's memory: a restarted daemon refuses the ids of its
// predecessor, by name.
package plans

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/protocol/wire"
)

// maxPlans bounds the plans kept (expired ones included, so that their
// refusal can say how old they are); the oldest goes first.
const maxPlans = 256

// Plan is one issued plan.
type Plan struct {
	ID      string
	Input   ops.RunTasksInput
	Plan    *wire.Plan
	Prereq  *wire.PlanPrerequisites
	Made    time.Time
	Expires time.Time
	TTL     time.Duration
	// Origin names what asked for the plan: "planTasks", or the arguments
	// of the runTasks call that planned in order to ask for confirmation.
	Origin string
	// Kind is the tool that applies the plan (kindRun when empty); Prune
	// is a pruneCache plan's eviction.
	Kind  string
	Prune *PrunePlan
	// Does says what applying the plan does, for the person approving it.
	Does string

	state    string // "", "running", or the applied run's id
	applied  bool
	approval string        // who approved it, "" while it waits
	approved chan struct{} // closed once approved
}

// The kinds of plan, by the tool that applies them.
const (
	kindRun   = "runTasks"
	kindPrune = "pruneCache"
)

func (p *Plan) kind() string {
	if p.Kind == "" {
		return kindRun
	}
	return p.Kind
}

// Store holds one daemon's plans. The zero value is not usable; use
// NewStore.
type Store struct {
	instance string
	now      func() time.Time

	mu    sync.Mutex
	plans map[string]*Plan
	order []string
}

// NewStore returns an empty store with a fresh instance id, which prefixes
// every plan id it issues.
func NewStore() *Store {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return &Store{instance: hex.EncodeToString(b[:]), now: time.Now, plans: map[string]*Plan{}}
}

const idPrefix = "plan-"

// Issue records p (its Made, Expires and ID are set here) and returns it.
func (s *Store) Issue(p *Plan, ttl time.Duration) *Plan {
	var b [12]byte
	_, _ = rand.Read(b[:])
	p.ID = idPrefix + s.instance + "-" + hex.EncodeToString(b[:])
	p.Made = s.now()
	p.TTL = ttl
	p.Expires = p.Made.Add(ttl)
	p.approved = make(chan struct{})
	s.mu.Lock()
	defer s.mu.Unlock()
	s.plans[p.ID] = p
	s.order = append(s.order, p.ID)
	for len(s.order) > maxPlans {
		delete(s.plans, s.order[0])
		s.order = s.order[1:]
	}
	return p
}

// Lookup returns the plan named id if it could be applied now (see Claim),
// without claiming it.
func (s *Store) Lookup(id string) (*Plan, error) {
	p, err := s.Claim(id)
	if err != nil {
		return nil, err
	}
	s.Release(p)
	return p, nil
}

// Claim hands out the plan named id for applying, refusing (with what to
// do) an id of another daemon, an unknown, expired, applied or running
// plan. A claimed plan must be given back with Release or Applied.
func (s *Store) Claim(id string) (*Plan, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.live(id)
	if err != nil {
		return nil, err
	}
	p.state = "running"
	return p, nil
}

// live is the plan named id if it may still be applied (s.mu held).
func (s *Store) live(id string) (*Plan, error) {
	again := "call planTasks again and runTasks with its planId"
	rest, ok := strings.CutPrefix(id, idPrefix)
	inst, _, ok2 := strings.Cut(rest, "-")
	if !ok || !ok2 || len(inst) != len(s.instance) {
		return nil, fmt.Errorf("argument \"planId\": %q is not a plan id (planTasks answers one such as %s%s-…)", id, idPrefix, s.instance)
	}
	if inst != s.instance {
		return nil, fmt.Errorf("plan %s was made by an earlier vxd, which has stopped since: plans live only in the daemon that made them; %s", id, again)
	}
	p := s.plans[id]
	now := s.now()
	switch {
	case p == nil:
		return nil, fmt.Errorf("plan %s is unknown to this vxd (it keeps the last %d plans); %s", id, maxPlans, again)
	case p.applied:
		return nil, fmt.Errorf("plan %s was already applied (run %s); a plan runs once: %s", id, p.state, again)
	case p.state == "running":
		return nil, fmt.Errorf("plan %s is being applied by another runTasks call right now", id)
	case !now.Before(p.Expires):
		return nil, fmt.Errorf("plan %s expired %s ago: it was made %s ago and plans last %s (mcp.planTtl); %s",
			id, round(now.Sub(p.Expires)), round(now.Sub(p.Made)), p.TTL, again)
	}
	return p, nil
}

// Release gives back a claimed plan that did not run.
func (s *Store) Release(p *Plan) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p.state = ""
}

// Applied marks a claimed plan as run (by run runID): it is not run again.
func (s *Store) Applied(p *Plan, runID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p.applied = true
	p.state = runID
	if runID == "" {
		p.state = "unrecorded"
	}
}

func round(d time.Duration) time.Duration {
	if d > time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

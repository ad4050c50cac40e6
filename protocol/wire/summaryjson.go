package wire

import (
	"encoding/json"
	"slices"
	"strconv"
)

// AppendJSON appends s as json.Marshal encodes it, without reflection for
// its rows: the end of a run of 10,000 tasks carries 10,000 of them to
// vxd's feed, and json.Marshal of them was 11–14 ms of the run's CPU. A
// summary with a time json.Marshal would refuse goes through json.Marshal
// whole; the parts no cached run has (the remote cache's report, a row's
// sandbox violations and CPU parallelism) go through it on their own.
func (s *RunSummary) AppendJSON(b []byte) ([]byte, error) {
	if !plainTime(s.StartedAt) || !plainTime(s.EndedAt) {
		out, err := json.Marshal(s)
		return append(b, out...), err
	}
	// Room for the rows at once: 10,000 of them (2 MB) appended to a
	// buffer grown as it fills were 10 MB of copies, slower than
	// json.Marshal's pooled buffer.
	b = slices.Grow(b, 512+rowBytes*len(s.Tasks))
	b = AppendJSONString(append(b, `{"runId":`...), s.RunID)
	b = strconv.AppendBool(append(b, `,"ok":`...), s.OK)
	b = strconv.AppendInt(append(b, `,"exitCode":`...), int64(s.ExitCode), 10)
	b = AppendJSONString(append(b, `,"status":`...), s.Status)
	b = AppendJSONString(append(b, `,"command":`...), s.Command)
	b = appendTime(append(b, `,"startedAt":`...), s.StartedAt)
	b = appendTime(append(b, `,"endedAt":`...), s.EndedAt)
	b = strconv.AppendInt(append(b, `,"durationMs":`...), s.DurationMs, 10)
	b = appendField(b, "gitBranch", s.GitBranch)
	b = appendField(b, "gitCommit", s.GitCommit)
	b = s.Totals.appendJSON(append(b, `,"totals":`...))
	b = append(b, `,"tasks":`...)
	if s.Tasks == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range s.Tasks {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = s.Tasks[i].appendJSON(b); err != nil {
				return b, err
			}
		}
		b = append(b, ']')
	}
	b = appendStrings(append(b, `,"warnings":`...), s.Warnings)
	if s.Remote != nil {
		var err error
		if b, err = appendValue(append(b, `,"remote":`...), s.Remote); err != nil {
			return b, err
		}
	}
	b = appendField(b, "repeatOf", s.RepeatOf)
	return append(b, '}'), nil
}

// rowBytes is about what a cached task's row takes in JSON.
const rowBytes = 256

// appendJSON appends the totals as json.Marshal encodes them.
func (t *RunTotals) appendJSON(b []byte) []byte {
	b = strconv.AppendInt(append(b, `{"tasks":`...), int64(t.Tasks), 10)
	b = strconv.AppendInt(append(b, `,"passed":`...), int64(t.Passed), 10)
	b = strconv.AppendInt(append(b, `,"cached":`...), int64(t.Cached), 10)
	b = strconv.AppendInt(append(b, `,"failed":`...), int64(t.Failed), 10)
	b = strconv.AppendInt(append(b, `,"blocked":`...), int64(t.Blocked), 10)
	b = strconv.AppendInt(append(b, `,"timedOut":`...), int64(t.TimedOut), 10)
	b = strconv.AppendInt(append(b, `,"interrupted":`...), int64(t.Interrupted), 10)
	b = strconv.AppendInt(append(b, `,"skipped":`...), int64(t.Skipped), 10)
	if t.RemoteHits != 0 {
		b = strconv.AppendInt(append(b, `,"remoteHits":`...), int64(t.RemoteHits), 10)
	}
	return append(b, '}')
}

// appendJSON appends the row as json.Marshal encodes it.
func (r *TaskRow) appendJSON(b []byte) ([]byte, error) {
	b = AppendJSONString(append(b, `{"taskId":`...), r.TaskID)
	b = AppendJSONString(append(b, `,"project":`...), r.Project)
	b = AppendJSONString(append(b, `,"task":`...), r.Task)
	b = AppendJSONString(append(b, `,"status":`...), r.Status)
	b = AppendJSONString(append(b, `,"cache":`...), r.Cache)
	b = appendField(b, "cacheSource", r.CacheSource)
	b = AppendJSONString(append(b, `,"key":`...), r.Key)
	b = strconv.AppendInt(append(b, `,"durationMs":`...), r.DurationMs, 10)
	b = append(b, `,"exitCode":`...)
	if r.ExitCode == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*r.ExitCode), 10)
	}
	b = appendField(b, "reason", r.Reason)
	if len(r.BlockedBy) > 0 {
		b = appendStrings(append(b, `,"blockedBy":`...), r.BlockedBy)
	}
	if r.TimedOut {
		b = append(b, `,"timedOut":true`...)
	}
	if r.PeakRSSBytes != 0 {
		b = strconv.AppendInt(append(b, `,"peakRssBytes":`...), r.PeakRSSBytes, 10)
	}
	var err error
	if r.CPUParallelism != 0 {
		if b, err = appendValue(append(b, `,"cpuParallelism":`...), r.CPUParallelism); err != nil {
			return b, err
		}
	}
	if r.Outputs != 0 {
		b = strconv.AppendInt(append(b, `,"outputs":`...), int64(r.Outputs), 10)
	}
	if len(r.SandboxViolations) > 0 {
		if b, err = appendValue(append(b, `,"sandboxViolations":`...), r.SandboxViolations); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendStrings appends a list of strings (null when nil).
func appendStrings(b []byte, list []string) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendJSONString(b, s)
	}
	return append(b, ']')
}

// appendValue appends json.Marshal's encoding of v.
func appendValue(b []byte, v any) ([]byte, error) {
	out, err := json.Marshal(v)
	return append(b, out...), err
}

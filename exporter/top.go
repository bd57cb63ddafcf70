package exporter

// The exporter at a wide root (a lock per entity, 100,000 lock parents):
// per-path series for the top ones only, aggregates over all of them.

import (
	"cmp"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zklock/zklock/model"
)

// aggDescs are the series over every lock parent of the model, whatever
// --top leaves out: an alert on them sees every parent.
var aggDescs = struct {
	held, waiting, holders, waiters, warned, oldestWait *prometheus.Desc
}{
	held:       prometheus.NewDesc("zklock_parents_held", "Lock parents with a holder.", nil, nil),
	waiting:    prometheus.NewDesc("zklock_parents_waiting", "Lock parents with a waiter (a stuck lock is one of them).", nil, nil),
	holders:    prometheus.NewDesc("zklock_holders", "Nodes holding, over every lock parent.", nil, nil),
	waiters:    prometheus.NewDesc("zklock_waiters", "Nodes waiting, over every lock parent.", nil, nil),
	warned:     prometheus.NewDesc("zklock_parents_warned", "Lock parents with a warning, by code (split-holders, deadlock, mixed-recipes, missing-watch, herd, over-limit, self-wait, duplicate-participant).", []string{"code"}, nil),
	oldestWait: prometheus.NewDesc("zklock_oldest_wait_since_timestamp_seconds", "Unix time the longest waiter of any lock parent started waiting; absent with no waiter.", nil, nil),
}

// aggWarnCodes are the codes zklock_parents_warned always carries (0 when
// no parent has it), so that a rule on one never sees it vanish.
var aggWarnCodes = []string{model.WarnSplitHolders, model.WarnDeadlock, model.WarnMixedRecipes, model.WarnMissingWatch,
	model.WarnHerd, model.WarnOverLimit, model.WarnSelfWait, model.WarnDuplicateParticipant}

// collectAggregates sends the series over every lock parent.
func collectAggregates(all []lockMetrics, gauge func(*prometheus.Desc, float64, ...string)) {
	var held, waiting, holders, waiters int
	var oldest time.Time
	warned := make(map[string]int, len(aggWarnCodes))
	for i := range all {
		m := &all[i]
		holders += m.holders
		waiters += m.waiters
		if m.holders > 0 {
			held++
		}
		if m.waiters > 0 {
			waiting++
		}
		if !m.waitSince.IsZero() && (oldest.IsZero() || m.waitSince.Before(oldest)) {
			oldest = m.waitSince
		}
		for _, code := range m.codes {
			warned[code]++
		}
	}
	gauge(aggDescs.held, float64(held))
	gauge(aggDescs.waiting, float64(waiting))
	gauge(aggDescs.holders, float64(holders))
	gauge(aggDescs.waiters, float64(waiters))
	if !oldest.IsZero() {
		gauge(aggDescs.oldestWait, unixSeconds(oldest))
	}
	for _, code := range aggWarnCodes {
		gauge(aggDescs.warned, float64(warned[code]), code)
	}
	for code, n := range warned {
		if !slices.Contains(aggWarnCodes, code) {
			gauge(aggDescs.warned, float64(n), code)
		}
	}
}

// topParents is the indices (in path order) of the n lock parents that
// get series of their own: those with a warning that fails a check
// (failing) first (the alert rules read them per path), then those with waiters
// by their oldest wait, then the longest held, then by path. Parents
// with none of these (most of a wide root) are only ranked when fewer
// than n others are, so a scrape sorts the interesting few, not all.
func topParents(queues model.Queues, all []lockMetrics, n int, failing []string) []int {
	type ranked struct {
		failing, idle bool
		wait, hold    int64
		i             int
	}
	var cands []ranked
	var rest []int
	for i := range all {
		m := &all[i]
		r := ranked{i: i, wait: timeKey(m.waitSince), hold: timeKey(m.holdSince)}
		for _, code := range m.codes {
			r.failing = r.failing || slices.Contains(failing, code)
		}
		if !r.failing && m.waiters == 0 && m.holders == 0 {
			rest = append(rest, i)
			continue
		}
		r.idle = m.waiters == 0
		cands = append(cands, r)
	}
	slices.SortFunc(cands, func(a, b ranked) int {
		switch {
		case a.failing != b.failing:
			return boolFirst(a.failing)
		case a.idle != b.idle:
			return boolFirst(!a.idle)
		case a.wait != b.wait:
			return cmp.Compare(a.wait, b.wait)
		case a.hold != b.hold:
			return cmp.Compare(a.hold, b.hold)
		}
		return cmp.Compare(a.i, b.i)
	})
	top := make([]int, 0, min(n, queues.Len()))
	for _, r := range cands[:min(n, len(cands))] {
		top = append(top, r.i)
	}
	top = append(top, rest[:min(n-len(top), len(rest))]...)
	slices.Sort(top)
	return top
}

// timeKey orders times earliest first, unknown (zero) ones last.
func timeKey(t time.Time) int64 {
	if t.IsZero() {
		return 1<<63 - 1
	}
	return t.UnixNano()
}

func boolFirst(a bool) int {
	if a {
		return -1
	}
	return 1
}

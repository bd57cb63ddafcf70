// Recipes that cannot see each other: families, splits and mixed queues.
//
// Lock nodes fall into families whose clients order each other correctly:
//
//   - curator-mutex: Curator InterProcessMutex, gozk, and plain nodes
//     whose text after the last "lock-" (or whole name) is the sequence
//     ("lock-0000000007", "0000000007"): Curator sorts them by their
//     digits and gozk parses them;
//   - curator-rw: Curator InterProcessReadWriteLock (its sort key for a
//     mutex node is the whole name, which sorts after every digit);
//   - curator-latch: Curator LeaderLatch participants, and plain nodes
//     whose text after the last "latch-" is the sequence (LeaderLatch
//     sorts every other name whole, after its digits, and a lock sorts
//     latch names whole: neither sees the other). A latch parent holds
//     only latch nodes in practice; a lock node there is mixed-recipes,
//     as it would be on any lock;
//   - kazoo: Kazoo counts only __lock__/__rlock__ names;
//   - plain: other "...-<seq>" names, which Curator sorts by their prefix
//     and gozk cannot parse.
//
// A parent with nodes of more than one family is mixed (MixedRecipes,
// DetectStyle's ErrMixedRecipes); more than one node believing it holds a
// mutex or write lock is a split (SplitHolders). Believes is a replay on
// the current list: a node that took the lock earlier keeps it even where
// its recipe, asked again now, would wait (go-zookeeper after the wrap:
// the old holder and the new lowest both hold, and only the new one
// believes so here); Role, from sequence order, names the node that
// rightly holds.

package ordering

import (
	"fmt"
	"strings"
)

// RecipeGroup is one family of mutually visible recipes on a mixed parent.
type RecipeGroup struct {
	Name  string   // family: curator-mutex, curator-rw, curator-latch, kazoo, plain
	Nodes []string // its lock nodes, in sequence order
}

// recipesOf is the recipes present in q, in Recipe's order.
func recipesOf(q Ordering) []Recipe {
	var seen [RecipeEphemeral + 1]bool
	for _, e := range q.Entries {
		seen[e.Recipe] = true
	}
	var rs []Recipe
	for r, ok := range seen {
		if ok {
			rs = append(rs, Recipe(r))
		}
	}
	return rs
}

// splitHolders names q's nodes that believe they hold a mutex or write
// lock, in sequence order, when there is more than one; else nil.
func splitHolders(q Ordering) []string {
	var names []string
	for _, e := range q.Entries {
		if e.Believes == RoleHolder && e.Kind != KindRead {
			names = append(names, e.Name)
		}
	}
	if len(names) < 2 {
		return nil
	}
	return names
}

// mixedRecipes groups every lock node of q by family (curator-mutex,
// curator-rw, curator-latch, kazoo, plain, in that order) when more than
// one family is present; else nil.
func mixedRecipes(q Ordering) []RecipeGroup {
	var groups []RecipeGroup
	for _, f := range [...]string{FamilyCuratorMutex, FamilyCuratorRW, FamilyCuratorLatch, FamilyKazoo, FamilyPlain} {
		var names []string
		for _, e := range q.Entries {
			if e.Family() == f {
				names = append(names, e.Name)
			}
		}
		if names != nil {
			groups = append(groups, RecipeGroup{Name: f, Nodes: names})
		}
	}
	if len(groups) < 2 {
		return nil
	}
	return groups
}

// DetectStyle decides how a node joining q is named: StyleKazoo for a
// queue of Kazoo nodes; StyleCurator for an empty queue and for one of
// Curator, go-zookeeper or plain nodes; for a mixed queue StyleCurator
// and ErrMixedRecipes, wrapped with the groups.
func DetectStyle(q Ordering) (Style, error) {
	if groups := mixedRecipes(q); groups != nil {
		const show = 3 // names per group: a 10,000-node queue stays one line
		parts := make([]string, len(groups))
		for i, g := range groups {
			names := g.Nodes[:min(len(g.Nodes), show)]
			parts[i] = fmt.Sprintf("%s (%d): %s", g.Name, len(g.Nodes), strings.Join(names, ", "))
			if more := len(g.Nodes) - len(names); more > 0 {
				parts[i] += fmt.Sprintf(" and %d more", more)
			}
		}
		return StyleCurator, fmt.Errorf("%w: %s", ErrMixedRecipes, strings.Join(parts, "; "))
	}
	if len(q.Entries) > 0 && q.Entries[0].Recipe == RecipeKazoo {
		return StyleKazoo, nil
	}
	return StyleCurator, nil
}

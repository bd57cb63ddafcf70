package ordering

// Kind is what a lock node asks for.
type Kind uint8

const (
	// KindOther is a child that is not a lock node (no sequence suffix, or
	// a name no recipe recognises); shown, never queued.
	KindOther Kind = iota
	KindMutex
	KindRead
	KindWrite
)

func (k Kind) String() string {
	switch k {
	case KindMutex:
		return "mutex"
	case KindRead:
		return "read"
	case KindWrite:
		return "write"
	}
	return "other"
}

// Recipe is the client library whose naming a lock node follows.
type Recipe uint8

const (
	RecipeUnknown Recipe = iota
	RecipeCurator        // Curator InterProcessMutex and InterProcessReadWriteLock
	RecipeKazoo          // Kazoo Lock, WriteLock, ReadLock
	RecipeGoZK           // go-zookeeper zk.Lock
	RecipePlain          // lock-0000000007, x-<anything>-0000000007
	// RecipeEphemeral is the plain ephemeral-node lock: every contender
	// creates the same non-sequential ephemeral node and the one that
	// succeeds holds. Its name carries no sequence, so ParseName and
	// Order never return it; zkview tells it by the node's stat.
	RecipeEphemeral
)

func (r Recipe) String() string {
	switch r {
	case RecipeCurator:
		return "curator"
	case RecipeKazoo:
		return "kazoo"
	case RecipeGoZK:
		return "gozk"
	case RecipePlain:
		return "plain"
	case RecipeEphemeral:
		return "ephemeral"
	}
	return "unknown"
}

// Role is whether a lock node holds or waits.
type Role uint8

const (
	RoleWaiting Role = iota
	RoleHolder
)

func (r Role) String() string {
	if r == RoleHolder {
		return "holder"
	}
	return "waiting"
}

package cluster

import (
	"context"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/storage"
)

// Local is the coordinator of a single-node cluster: every command goes to
// the local engine, and every consistency level is satisfied by this one
// replica except those that need more live replicas than a keyspace's
// replication can offer on one node.
type Local struct {
	engine storage.Engine
}

var _ query.Coordinator = (*Local)(nil)

// NewLocal returns a coordinator over engine.
func NewLocal(engine storage.Engine) *Local { return &Local{engine: engine} }

// Mutate implements query.Coordinator.
func (l *Local) Mutate(ctx context.Context, t *schema.Table, cl query.Consistency, updates []*mutation.PartitionUpdate) error {
	if cl == query.Serial || cl == query.LocalSerial {
		return cqlerr.Invalidf("You must use conditional updates for serializable writes")
	}
	if err := l.engine.Apply(ctx, t, updates...); err != nil {
		if ce, ok := err.(*cqlerr.Error); ok {
			return ce
		}
		return &cqlerr.Error{Code: cqlerr.WriteFailure, Message: "Operation failed - received 0 responses and 1 failures: " + err.Error(),
			Consistency: uint16(cl), Received: 0, BlockFor: 1, WriteType: "SIMPLE"}
	}
	return nil
}

// Read implements query.Coordinator.
func (l *Local) Read(ctx context.Context, t *schema.Table, cl query.Consistency, cmd *mutation.ReadCommand) ([]mutation.Partition, error) {
	if cl == query.Any {
		return nil, cqlerr.Invalidf("ANY ConsistencyLevel is only supported for writes")
	}
	parts, err := l.engine.Read(ctx, t, cmd)
	if err != nil {
		if ce, ok := err.(*cqlerr.Error); ok {
			return nil, ce
		}
		return nil, &cqlerr.Error{Code: cqlerr.ReadFailure, Message: "Operation failed - received 0 responses and 1 failures: " + err.Error(),
			Consistency: uint16(cl), Received: 0, BlockFor: 1}
	}
	return parts, nil
}

// Truncate implements query.Coordinator.
func (l *Local) Truncate(ctx context.Context, t *schema.Table) error {
	return l.engine.DropTable(ctx, t.ID)
}

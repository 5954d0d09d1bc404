package query

import (
	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/schema"
)

// Custom index expressions (WHERE expr(index, 'query')), checked as
// Cassandra 5.0's StatementRestrictions.processCustomIndexExpressions does
// (messages from IndexRestrictions). No index cqld builds accepts custom
// expressions: SAI's customExpressionValueType is null in Cassandra 5.0 too,
// so every well-formed expression ends in one of these errors.
const (
	msgIndexNotFound          = "Invalid index expression, index %s not found for %s"
	msgNonCustomIndexInExpr   = "Only CUSTOM indexes may be used in custom index expressions, %s is not valid"
	msgCustomExprNotSupported = "Index %s does not support custom expressions"
	msgMultipleCustomExprs    = "Multiple custom index expressions in a single query are not supported"
	msgCustomExprInModify     = "Custom index expressions cannot be used in WHERE clauses for UPDATE or DELETE statements"
)

// checkCustomIndexExpressions returns the error for the custom index
// expressions of a SELECT's WHERE clause, or nil when there are none.
func checkCustomIndexExpressions(t *schema.Table, where []cql.Relation) error {
	var exprs []*cql.Relation
	for i := range where {
		if where[i].Index != nil {
			exprs = append(exprs, &where[i])
		}
	}
	if len(exprs) == 0 {
		return nil
	}
	if len(exprs) > 1 {
		return cqlerr.Invalidf(msgMultipleCustomExprs)
	}
	name := exprs[0].Index.Name
	for _, ix := range t.Indexes {
		if ix.Name != name {
			continue
		}
		if !ix.Custom {
			return cqlerr.Invalidf(msgNonCustomIndexInExpr, name)
		}
		return cqlerr.Invalidf(msgCustomExprNotSupported, name)
	}
	return cqlerr.Invalidf(msgIndexNotFound, name, quoteIdentIfNeeded(t.Keyspace)+"."+quoteIdentIfNeeded(t.Name))
}

package query

import (
	"context"
	"strconv"
	"strings"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// Dynamic data masking (Cassandra 5.0, dynamic_data_masking_enabled): a
// column MASKED WITH a masking function returns masked values to users
// without the UNMASK permission on its table. Under Cassandra's default
// AllowAllAuthorizer every user holds UNMASK, so masks only show with an
// authorizer (CassandraAuthorizer) and a user who was not granted it.

// maskingDisabled is ColumnMask.DISABLED_ERROR_MESSAGE.
const maskingDisabled = "Cannot mask columns because dynamic data masking is not enabled. You can enable it with the dynamic_data_masking_enabled property on cassandra.yaml"

// maskingFunctions are the native functions that may mask a column.
var maskingFunctions = map[string]bool{
	"mask_null": true, "mask_default": true, "mask_replace": true,
	"mask_inner": true, "mask_outer": true, "mask_hash": true,
}

// maskText is ColumnMask.Raw.toString: name(args) as written.
func maskText(m *cql.ColumnMask) string {
	name := m.Function.Name
	if m.Function.Keyspace != "" {
		name = m.Function.Keyspace + "." + name
	}
	args := make([]string, len(m.Args))
	for i, a := range m.Args {
		args[i] = cql.FormatTerm(a)
	}
	return name + "(" + strings.Join(args, ", ") + ")"
}

// prepareMask is ColumnMask.Raw.prepare: it resolves the masking function
// for a column of table t (ks.table) and evaluates its partial arguments.
func (e *Executor) prepareMask(t *schema.Table, col *schema.Column, m *cql.ColumnMask) (*schema.ColumnMask, error) {
	if !e.cfg.DynamicDataMaskingEnabled {
		return nil, cqlerr.Invalidf(maskingDisabled)
	}
	if m.Default {
		m = &cql.ColumnMask{Function: cql.QualifiedName{Name: "mask_default"}}
	}
	name := strings.ToLower(m.Function.Name)
	if ks := m.Function.Keyspace; ks != "" && ks != "system" {
		// A user-defined function: cqld has none (Java UDFs are disabled).
		return nil, cqlerr.Invalidf("Unable to find masking function for %s, no declared function matches the signature %s", col.Name, maskText(m))
	}
	raw := make([]cql.SelectorExpr, 1+len(m.Args))
	argTypes := make([]*types.Type, 1+len(m.Args))
	raw[0], argTypes[0] = &cql.ColumnSel{Name: col.Name}, col.Type
	for i, a := range m.Args {
		raw[i+1] = &cql.TermSel{Term: a}
	}
	if !maskingFunctions[name] {
		if _, err := resolveNative(name, raw, argTypes); err == nil || !strings.Contains(err.Error(), "Unknown function") {
			return nil, cqlerr.Invalidf("Not-masking function %s cannot be used for masking table columns", maskText(m))
		}
		return nil, cqlerr.Invalidf("Unable to find masking function for %s, no declared function matches the signature %s", col.Name, maskText(m))
	}
	fn, _, err := resolveMask(name, raw, argTypes)
	if err != nil {
		return nil, cqlerr.Invalidf("Unable to find masking function for %s, no declared function matches the signature %s", col.Name, maskText(m))
	}
	if !fn.ret.Equal(col.Type) {
		return nil, cqlerr.Invalidf("Masking function %s return type is %s. This is different to the type of the masked column %s of type %s. Masking functions can only be attached to table columns if they return the same data type as the masked column.",
			maskText(m), fn.ret, col.Name, col.Type)
	}
	out := &schema.ColumnMask{Function: name}
	c := &compiled{}
	for i, a := range m.Args {
		pt := fn.params[i+1]
		f, err := c.compileTerm(a, spec(t, "arg"+strconv.Itoa(i), pt), e.now)
		if err != nil {
			// FunctionResolver finds no overload for these arguments.
			return nil, cqlerr.Invalidf("Unable to find masking function for %s, no declared function matches the signature %s", col.Name, maskText(m))
		}
		if len(c.bound) > 0 {
			return nil, cqlerr.Invalidf("Bind variables are not allowed in masking functions")
		}
		v, _, err := f(nil)
		if err != nil {
			return nil, err
		}
		out.ArgTypes = append(out.ArgTypes, pt.String())
		out.Args = append(out.Args, v)
	}
	return out, nil
}

// masker returns the function that masks values of col (nil when col has
// no mask).
func masker(col *schema.Column) func([]byte) ([]byte, error) {
	m := col.Mask
	if m == nil {
		return nil
	}
	raw := make([]cql.SelectorExpr, 1+len(m.Args))
	argTypes := make([]*types.Type, 1+len(m.Args))
	raw[0], argTypes[0] = &cql.ColumnSel{Name: col.Name}, col.Type
	for i, ts := range m.ArgTypes {
		raw[i+1] = &cql.ColumnSel{Name: "arg"}
		if t, err := types.ParseTypeString(ts); err == nil {
			argTypes[i+1] = t
		}
	}
	fn, _, err := resolveMask(m.Function, raw, argTypes)
	if err != nil {
		return func([]byte) ([]byte, error) { return nil, err }
	}
	return func(v []byte) ([]byte, error) {
		if v == nil && !fn.calledOnNull {
			return nil, nil
		}
		args := append([][]byte{v}, m.Args...)
		return fn.exec(nil, args)
	}
}

type maskedKey struct{}

// withMasking marks a SELECT's context: masked columns show masked values.
func withMasking(ctx context.Context) context.Context {
	return context.WithValue(ctx, maskedKey{}, true)
}

func maskingOn(ctx context.Context) bool {
	v, _ := ctx.Value(maskedKey{}).(bool)
	return v
}

// selectMasked reports whether sess sees t's masked columns masked: with
// an authorizer, a user without UNMASK on the table (superusers hold
// every permission). Cassandra's AllowAllAuthorizer grants UNMASK to all.
func (e *Executor) selectMasked(ctx context.Context, sess *Session, t *schema.Table) bool {
	if e.cfg.Security == nil || sess == nil || sess.Internal {
		return false
	}
	masked := false
	for _, c := range t.Columns {
		if c.Mask != nil {
			masked = true
			break
		}
	}
	if !masked {
		return false
	}
	return e.cfg.Security.Authorize(ctx, sess, "UNMASK", DataResource(t.Keyspace, t.Name)) != nil
}

// maskString is ColumnMask.toString: name(literal args), as DESCRIBE
// prints it.
func maskString(m *schema.ColumnMask) string {
	args := make([]string, len(m.Args))
	for i, v := range m.Args {
		t, err := types.ParseTypeString(m.ArgTypes[i])
		if err != nil || v == nil {
			args[i] = "null"
			continue
		}
		args[i] = types.FormatCQL(t, v)
	}
	return "system." + m.Function + "(" + strings.Join(args, ", ") + ")"
}

// alterMask is ALTER TABLE ... ALTER c MASKED WITH f(...) / DROP MASKED.
func (e *Executor) alterMask(t *schema.Table, st *cql.AlterTable) (*schema.Table, error) {
	cols := copyColumns(t)
	for _, c := range cols {
		if c.Name != st.Column {
			continue
		}
		if st.Op == cql.AlterTableUnmaskColumn {
			if c.Mask == nil {
				return nil, nil // nothing to drop: no new schema version
			}
			c.Mask = nil
		} else {
			m, err := e.prepareMask(t, c, st.Mask)
			if err != nil {
				return nil, err
			}
			c.Mask = m
		}
	}
	return t.Altered(cols, t.Params, t.Dropped), nil
}

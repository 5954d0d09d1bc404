package cql

// BindMarkerCount returns the number of bind markers ('?' and ':name') in
// s, which is the number of values an EXECUTE of s must bind. Markers are
// numbered 0..n-1 in order of appearance, so this is one more than the
// highest BindMarker.Index.
func BindMarkerCount(s Statement) int {
	w := markerWalker{max: -1}
	w.statement(s)
	return w.max + 1
}

type markerWalker struct {
	max int
}

func (w *markerWalker) statement(s Statement) {
	switch s := s.(type) {
	case *Select:
		for _, sel := range s.Selectors {
			w.selector(sel.Expr)
		}
		w.relations(s.Where)
		for _, g := range s.GroupBy {
			w.selector(g)
		}
		for _, o := range s.OrderBy {
			w.term(o.Ann)
		}
		w.term(s.PerPartitionLimit)
		w.term(s.Limit)
	case *Insert:
		w.terms(s.Values)
		w.term(s.Json)
		w.using(s.Using)
	case *Update:
		w.using(s.Using)
		for _, a := range s.Set {
			w.term(a.Element)
			w.term(a.Value)
		}
		w.relations(s.Where)
		w.conditions(s.Conditions)
	case *Delete:
		for _, t := range s.Targets {
			w.term(t.Element)
		}
		w.using(s.Using)
		w.relations(s.Where)
		w.conditions(s.Conditions)
	case *Batch:
		w.using(s.Using)
		for _, st := range s.Statements {
			w.statement(st)
		}
	case *CreateKeyspace:
		w.properties(s.Properties)
	case *AlterKeyspace:
		w.properties(s.Properties)
	case *CreateTable:
		w.properties(s.Properties)
		for _, c := range s.Columns {
			w.mask(c.Mask)
		}
	case *CreateMaterializedView:
		if s.Select != nil {
			w.statement(s.Select)
		}
		w.properties(s.Properties)
	case *AlterMaterializedView:
		w.properties(s.Properties)
	case *CreateIndex:
		w.properties(s.Properties)
	case *CreateAggregate:
		w.term(s.InitCond)
	case *AlterTable:
		w.mask(s.Mask)
		for _, c := range s.Add {
			w.mask(c.Mask)
		}
		w.term(s.DropTimestamp)
		w.properties(s.Properties)
	}
}

func (w *markerWalker) mask(m *ColumnMask) {
	if m != nil {
		w.terms(m.Args)
	}
}

func (w *markerWalker) properties(props []Property) {
	for _, p := range props {
		w.term(p.Value)
	}
}

func (w *markerWalker) using(u UsingClause) {
	w.term(u.TTL)
	w.term(u.Timestamp)
}

func (w *markerWalker) relations(rels []Relation) {
	for i := range rels {
		r := &rels[i]
		w.term(r.MapKey)
		w.term(r.Value)
		w.terms(r.InValues)
		if r.InMarker != nil {
			w.term(r.InMarker)
		}
	}
}

func (w *markerWalker) conditions(conds []Condition) {
	for i := range conds {
		c := &conds[i]
		w.term(c.Element)
		w.term(c.Value)
		w.terms(c.InValues)
		if c.InMarker != nil {
			w.term(c.InMarker)
		}
	}
}

func (w *markerWalker) terms(ts []Term) {
	for _, t := range ts {
		w.term(t)
	}
}

func (w *markerWalker) term(t Term) {
	if t == nil {
		return
	}
	switch t := t.(type) {
	case *BindMarker:
		w.max = max(w.max, t.Index)
	case *CollectionLiteral:
		w.terms(t.Elems)
		w.terms(t.Keys)
		w.terms(t.Values)
	case *TupleLiteral:
		w.terms(t.Elems)
	case *UDTLiteral:
		w.terms(t.Values)
	case *FunctionCall:
		w.terms(t.Args)
	case *TypeHint:
		w.term(t.Term)
	case *CastTerm:
		w.term(t.Term)
	case *Negation:
		w.term(t.Term)
	case *BinaryOp:
		w.term(t.Left)
		w.term(t.Right)
	}
}

func (w *markerWalker) selector(e SelectorExpr) {
	switch e := e.(type) {
	case *FunctionSel:
		for _, a := range e.Args {
			w.selector(a)
		}
	case *CastSel:
		w.selector(e.Expr)
	case *HintSel:
		w.selector(e.Expr)
	case *TermSel:
		w.term(e.Term)
	case *FieldSel:
		w.selector(e.Expr)
	case *ElementSel:
		w.selector(e.Expr)
		w.term(e.Key)
		w.term(e.From)
		w.term(e.To)
	case *ArithSel:
		w.selector(e.Left)
		w.selector(e.Right)
	case *NegSel:
		w.selector(e.Expr)
	case *CollectionSel:
		w.selectors(e.Elems)
		w.selectors(e.Keys)
		w.selectors(e.Values)
	case *TupleSel:
		w.selectors(e.Elems)
	}
}

func (w *markerWalker) selectors(es []SelectorExpr) {
	for _, e := range es {
		w.selector(e)
	}
}

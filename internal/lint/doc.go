// Package lint holds repository-wide checks run as tests: the dependency
// direction of the internal packages (DESIGN.md, "Layout and dependency
// direction"), a doc.go in every package, and gofmt.
package lint

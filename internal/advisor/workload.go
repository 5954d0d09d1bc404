package advisor

import (
	"fmt"
	"os"

	"gopkg.in/yaml.v3"
)

// Workload is what the user expects of their tables and the queries they
// will run (YAML, see the advise command's help).
type Workload struct {
	Tables  map[string]TableWorkload `yaml:"tables"`
	Queries []string                 `yaml:"queries"`
}

// TableWorkload holds per-table expectations; zero means unknown.
type TableWorkload struct {
	RowsPerPartition          float64        `yaml:"rows_per_partition"`
	RowsPerSecondPerPartition float64        `yaml:"rows_per_second_per_partition"`
	DistinctPartitionKeys     float64        `yaml:"distinct_partition_keys"`
	AvgValueBytes             map[string]int `yaml:"avg_value_bytes"`
	// CollectionElements is the expected number of elements of
	// collection columns.
	CollectionElements map[string]int `yaml:"collection_elements"`
	// DistinctValues is the expected number of distinct values of columns
	// (secondary index and partition key cardinality).
	DistinctValues map[string]float64 `yaml:"distinct_values"`
}

// LoadWorkload reads a workload YAML file.
func LoadWorkload(path string) (*Workload, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseWorkload(b)
}

// ParseWorkload decodes workload YAML; unknown keys are errors so that a
// typo does not silently disable a check.
func ParseWorkload(b []byte) (*Workload, error) {
	var w Workload
	dec := yaml.NewDecoder(bytesReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&w); err != nil && err.Error() != "EOF" {
		return nil, fmt.Errorf("workload: %w", err)
	}
	return &w, nil
}

package query

import (
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/types"
)

// compressionPackage is where Cassandra's compressors live; a class name
// without a dot is in it.
const compressionPackage = "org.apache.cassandra.io.compress."

// compressorOptions are the options each of Cassandra's compressors takes
// besides the common ones (ICompressor.supportedOptions).
var compressorOptions = map[string][]string{
	"LZ4Compressor":     {"lz4_compressor_type", "lz4_high_compressor_level"},
	"SnappyCompressor":  nil,
	"DeflateCompressor": nil,
	"ZstdCompressor":    {"compression_level"},
	"NoopCompressor":    nil,
}

// compressionOptions checks a table's compression option and returns it
// as Cassandra stores it (CompressionParams.fromMap, then asMap): the
// full class name, chunk_length_in_kb (default 16), min_compress_ratio
// when not 0 and the compressor's own options; {'enabled': 'false'} when
// compression is off (an empty map too). Errors are Cassandra's
// ConfigurationExceptions, in its order.
func compressionOptions(opts map[string]string) (map[string]string, error) {
	if len(opts) == 0 {
		return map[string]string{"enabled": "false"}, nil
	}
	rest := maps.Clone(opts)
	enabled := true
	if v, ok := rest["enabled"]; ok {
		enabled = strings.EqualFold(v, "true") // Boolean.parseBoolean
		delete(rest, "enabled")
	}
	class, hasClass := rest["class"]
	if enabled && !hasClass {
		return nil, cqlerr.ConfigErrorf("Missing sub-option 'class' for the 'compression' option.")
	}
	if !enabled {
		if len(rest) > 0 {
			return nil, cqlerr.ConfigErrorf("If the 'enabled' option is set to false no other options must be specified")
		}
		return map[string]string{"enabled": "false"}, nil
	}
	delete(rest, "class")
	if class == "" {
		return nil, cqlerr.ConfigErrorf("The 'class' option must not be empty. To disable compression use 'enabled' : false")
	}
	chunkKB := 16
	if v, ok := rest["chunk_length_in_kb"]; ok {
		delete(rest, "chunk_length_in_kb")
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return nil, cqlerr.ConfigErrorf("Invalid value for chunk_length_in_kb")
		}
		if n > math.MaxInt32/1024 {
			return nil, cqlerr.ConfigErrorf("Value of chunk_length_in_kb is too large (%d)", n)
		}
		chunkKB = int(n)
	}
	ratio := 0.0
	ratioText, hasRatio := rest["min_compress_ratio"]
	if hasRatio {
		delete(rest, "min_compress_ratio")
		var err error
		if ratio, err = strconv.ParseFloat(strings.TrimSpace(ratioText), 64); err != nil {
			return nil, cqlerr.ConfigErrorf("Invalid value for min_compress_ratio: %s", ratioText)
		}
	}
	if !strings.Contains(class, ".") {
		class = compressionPackage + class
	}
	short, ok := strings.CutPrefix(class, compressionPackage)
	supported, known := compressorOptions[short]
	if !ok || !known {
		return nil, cqlerr.ConfigErrorf("Could not create Compression for type %s", class)
	}
	if err := checkCompressor(short, rest); err != nil {
		return nil, err
	}
	unknown := make([]string, 0, len(rest))
	for k := range rest {
		if !slices.Contains(supported, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, cqlerr.ConfigErrorf("Unknown compression options %s", unknown[0])
	}
	chunk := int64(chunkKB) * 1024
	if chunk <= 0 {
		return nil, cqlerr.ConfigErrorf("Invalid negative or null chunk_length_in_kb")
	}
	if chunk&(chunk-1) != 0 {
		return nil, cqlerr.ConfigErrorf("chunk_length_in_kb must be a power of 2")
	}
	// calcMaxCompressedLength: ceil(min(chunk / ratio, Integer.MAX_VALUE)).
	maxCompressed := math.Ceil(math.Min(float64(chunk)/ratio, math.MaxInt32))
	if maxCompressed < 0 {
		return nil, cqlerr.ConfigErrorf("Invalid negative min_compress_ratio")
	}
	if maxCompressed > float64(chunk) && maxCompressed < math.MaxInt32 {
		return nil, cqlerr.ConfigErrorf("min_compress_ratio can either be 0 or greater than or equal to 1")
	}
	out := rest
	out["class"] = class
	out["chunk_length_in_kb"] = strconv.Itoa(chunkKB)
	if ratio != 0 {
		out["min_compress_ratio"] = types.JavaDouble(ratio, 64)
	}
	return out, nil
}

// checkCompressor applies a compressor's own checks of its options (its
// create method).
func checkCompressor(short string, opts map[string]string) error {
	switch short {
	case "LZ4Compressor":
		if t, ok := opts["lz4_compressor_type"]; ok && t != "fast" && t != "high" {
			return cqlerr.ConfigErrorf("Invalid compressor type '%s' specified for LZ4 parameter 'lz4_compressor_type'. Valid options are [high, fast].", t)
		}
		if l, ok := opts["lz4_high_compressor_level"]; ok {
			if n, err := strconv.ParseInt(l, 10, 32); err != nil || n < 1 || n > 17 {
				return cqlerr.ConfigErrorf("Invalid value [%s] for parameter 'lz4_high_compressor_level'. Value must be between 1 and 17.", l)
			}
		}
	case "ZstdCompressor":
		if l, ok := opts["compression_level"]; ok {
			n, err := strconv.ParseInt(l, 10, 32)
			if err != nil {
				return cqlerr.ConfigErrorf("ZstdCompressor.create() threw an error: java.lang.NumberFormatException For input string: %q", l)
			}
			// Zstd.minCompressionLevel() and maxCompressionLevel().
			if n < -(1<<17) || n > 22 {
				return cqlerr.ConfigErrorf("ZstdCompressor.create() threw an error: java.lang.IllegalArgumentException compression_level=%d is invalid", n)
			}
		}
	}
	return nil
}

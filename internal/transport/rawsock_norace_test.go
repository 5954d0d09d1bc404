//go:build linux && !race

package transport

// raceBuild: allocation counts are not the product's in race builds.
const raceBuild = false

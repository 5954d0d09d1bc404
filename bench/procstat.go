package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// ProcStats is a process's resource use over a measured window, from
// /proc (Linux only; elsewhere the fields stay absent).
type ProcStats struct {
	// CPUSeconds is user+system CPU time spent in the window; CPUCores is
	// that divided by the window's wall time (1.0 = one core busy).
	CPUSeconds float64 `json:"cpu_seconds"`
	CPUCores   float64 `json:"cpu_cores"`
	// RSSBytes is the resident set at the end; PeakRSSBytes the largest
	// value sampled during the window (once per progress interval).
	RSSBytes     int64 `json:"rss_bytes"`
	PeakRSSBytes int64 `json:"peak_rss_bytes,omitempty"`
}

type procSample struct {
	at       time.Time
	cpuTicks int64
	rssBytes int64
}

// clockTicks is USER_HZ, 100 on every Linux the harness runs on.
const clockTicks = 100

// readProc samples pid (0: this process).
func readProc(pid int) (procSample, error) {
	p := "self"
	if pid > 0 {
		p = strconv.Itoa(pid)
	}
	s := procSample{at: time.Now()}
	stat, err := os.ReadFile("/proc/" + p + "/stat")
	if err != nil {
		return s, err
	}
	// Fields after the parenthesized command name: state is field 3;
	// utime and stime are fields 14 and 15.
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return s, fmt.Errorf("bench: malformed /proc/%s/stat", p)
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return s, fmt.Errorf("bench: short /proc/%s/stat", p)
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	s.cpuTicks = ut + st
	s.rssBytes, err = readRSS(p)
	return s, err
}

func readRSS(p string) (int64, error) {
	status, err := os.ReadFile("/proc/" + p + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("bench: no VmRSS in /proc/%s/status", p)
}

func (b *procSample) stats(e procSample, end time.Time, peak int64) *ProcStats {
	cpu := float64(e.cpuTicks-b.cpuTicks) / clockTicks
	wall := end.Sub(b.at).Seconds()
	ps := &ProcStats{CPUSeconds: cpu, RSSBytes: e.rssBytes, PeakRSSBytes: max(peak, e.rssBytes)}
	if wall > 0 {
		ps.CPUCores = cpu / wall
	}
	return ps
}

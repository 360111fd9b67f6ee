package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// clockTicks is the unit of the CPU times in /proc/PID/stat: USER_HZ,
// which Linux fixes at 100 per second for user space.
const clockTicks = 100

// A cpuTime is the CPU time a process has used, in seconds.
type cpuTime struct{ user, system float64 }

// total returns user and system time together.
func (t cpuTime) total() float64 { return t.user + t.system }

// sub returns the CPU time used between u and t.
func (t cpuTime) sub(u cpuTime) cpuTime { return cpuTime{t.user - u.user, t.system - u.system} }

// add returns t and u added up.
func (t cpuTime) add(u cpuTime) cpuTime { return cpuTime{t.user + u.user, t.system + u.system} }

// cpuSeconds returns the user and system CPU time the process has used.
func cpuSeconds(pid int) (cpuTime, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return cpuTime{}, fmt.Errorf("read the CPU time of process %d: %w", pid, err)
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: utime and stime are the 12th and 13th of them.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 13 {
		return cpuTime{}, fmt.Errorf("/proc/%d/stat has %d fields after the command, want at least 13", pid, len(fields))
	}
	utime, err := strconv.ParseUint(fields[11], 10, 64)
	if err != nil {
		return cpuTime{}, fmt.Errorf("utime in /proc/%d/stat: %w", pid, err)
	}
	stime, err := strconv.ParseUint(fields[12], 10, 64)
	if err != nil {
		return cpuTime{}, fmt.Errorf("stime in /proc/%d/stat: %w", pid, err)
	}
	return cpuTime{float64(utime) / clockTicks, float64(stime) / clockTicks}, nil
}

// peakRSS returns the most memory the process has held resident, in bytes
// (VmHWM).
func peakRSS(pid int) (int64, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("read the memory of process %d: %w", pid, err)
	}
	for line := range strings.Lines(string(status)) {
		value, ok := strings.CutPrefix(line, "VmHWM:")
		if !ok {
			continue
		}
		kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("VmHWM in /proc/%d/status: %w", pid, err)
		}
		return kib << 10, nil
	}
	return 0, fmt.Errorf("/proc/%d/status has no VmHWM", pid)
}

package llmthinking

import (
	"fmt"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/option"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

func init() {
	caddy.RegisterModule(App{})
	httpcaddyfile.RegisterGlobalOption("llm_thinking", parseGlobalOption)
}

// App holds llm_thinking's settings for the whole process, as Caddy holds
// its own process-wide settings: set once, in the global options, not by
// each handler.
//
//	{
//	    llm_thinking {
//	        memory_budget <size>
//	    }
//	}
type App struct {
	// MemoryBudget bounds, in bytes, all the memory llm_thinking holds at
	// once in the process: request bodies being read or waiting to be
	// forwarded, their rewritten copies and replays, and answers held to
	// be read or rewritten. A request takes room as its body arrives and
	// waits for room when there is none (see the handler's memory_wait);
	// large requests may fill seven eighths of it, the rest is kept for
	// small ones, and a body larger than half of that (112 MiB of 256 MiB)
	// is refused with 413. Unset, 256 MiB, or half of GOMEMLIMIT when that
	// is lower (Caddy sets GOMEMLIMIT from a container's memory limit).
	// Room comes back as soon as a request lets go of its memory; the
	// garbage that leaves is Go's to collect, on its own pacing: GOGC, and
	// GOMEMLIMIT, which bounds the process's memory (see docs/memory.md).
	MemoryBudget int64 `json:"memory_budget,omitempty"`

	memory *budget.Budget
}

// CaddyModule returns the Caddy module information.
func (App) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "llm_thinking",
		New: func() caddy.Module { return new(App) },
	}
}

// Provision checks the settings and applies them to the process.
func (a *App) Provision(caddy.Context) error {
	if err := a.Validate(); err != nil {
		return err
	}
	a.memory = budget.Process.Configure(a, budget.Settings{Size: a.MemoryBudget})
	return nil
}

// Validate checks the settings.
func (a *App) Validate() error {
	switch {
	case a.MemoryBudget < 0:
		return fmt.Errorf("llm_thinking: memory_budget must not be negative, got %d", a.MemoryBudget)
	case a.MemoryBudget > 0 && a.MemoryBudget < budget.MinLimit:
		return fmt.Errorf("llm_thinking: memory_budget must be at least %d bytes (1MiB), got %d", budget.MinLimit, a.MemoryBudget)
	}
	return nil
}

// Start does nothing: the settings apply from Provision on.
func (a *App) Start() error { return nil }

// Stop does nothing: Cleanup withdraws the settings.
func (a *App) Stop() error { return nil }

// Cleanup withdraws the app's say in the process's settings.
func (a *App) Cleanup() error {
	budget.Process.Leave(a)
	return nil
}

// parseGlobalOption reads the llm_thinking global option:
//
//	llm_thinking {
//	    memory_budget <size>
//	}
func parseGlobalOption(d *caddyfile.Dispenser, _ any) (any, error) {
	d.Next() // the option's name
	if d.NextArg() {
		return nil, d.ArgErr()
	}
	var a App
	for d.NextBlock(0) {
		sub := d.Val()
		if !d.NextArg() {
			return nil, d.ArgErr()
		}
		val := d.Val()
		if d.NextArg() {
			return nil, d.ArgErr()
		}
		switch sub {
		case "memory_budget":
			size, err := option.Size(sub, val)
			if err != nil {
				return nil, d.Err(err.Error())
			}
			a.MemoryBudget = size
		default:
			return nil, d.Errf("unrecognized llm_thinking global option %q", sub)
		}
	}
	return httpcaddyfile.App{Name: "llm_thinking", Value: caddyconfig.JSON(a, nil)}, nil
}

// Interface guards
var (
	_ caddy.App          = (*App)(nil)
	_ caddy.Provisioner  = (*App)(nil)
	_ caddy.Validator    = (*App)(nil)
	_ caddy.CleanerUpper = (*App)(nil)
)

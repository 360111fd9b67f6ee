package command

import (
	"errors"
	"io"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/adminapi"
)

// Usage lines of the subcommands, after "caddy llm-thinking".
const (
	statusUsage = "status [--json] [--address <interface>]"
	switchUsage = "switch [--route <id|path>] [--address <interface>] <backend> [<upstream>...]"
	forgetUsage = "forget [--registry <name>] [--address <interface>] <backend> [<model>]"
)

// A Caddy built with the module has the command: the plugin's package
// imports this one for it (see plugin.go).
func init() {
	caddycmd.RegisterCommand(New())
}

// New returns the llm-thinking command, for caddycmd.RegisterCommand.
func New() caddycmd.Command {
	return caddycmd.Command{
		Name:  "llm-thinking",
		Usage: "status|switch|forget",
		Short: "Shows llm_thinking handlers and registries, switches backends, forgets what was learned of models",
		Long: `
Talks to the running Caddy through its admin API, as 'caddy stop' and
'caddy reload' do: the address is --address if given, else the admin
address of the --config file, else the default (localhost:2019).

caddy llm-thinking ` + statusUsage + `
	Prints every llm_thinking handler of the config (its route, backend,
	mode, registry and the upstreams of the route's reverse_proxy handlers),
	the statistics of every registry, and the memory budget of the process
	(the budget, what is held and in use now, the peak, requests that
	waited for room, 529s, answers passed unread for lack of room).
	--json prints one JSON document.

caddy llm-thinking ` + switchUsage + `
	Switches a route to another backend and, when upstreams are given,
	gives the route's reverse_proxy that serves that backend these
	upstreams (host:port), in one atomic config change. A backend read from
	a variable ('backend {vars.llm_backend}') is switched by changing the
	route's 'vars llm_backend' value, so reverse_proxy matchers on it
	follow. --route names the route by @id or config path
	(/config/apps/http/servers/srv0/routes/0); it is needed only when
	several routes hold an llm_thinking handler. The change is made to the
	running config, as any admin API change: reloading a config file
	brings back what the file says.

caddy llm-thinking ` + forgetUsage + `
	Forgets what the registries learned of a backend's model (that it
	thinks, cannot think, or refuses a thinking-related field), or of
	every model of the backend when no model is given: for the day another
	model is served under an old name. --registry limits it to one
	registry. What is forgotten is learned again from the next answers and
	refusals.
`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.PersistentFlags().String("address", "", "The address of the admin API, if not the one of --config or the default")
			cmd.PersistentFlags().StringP("config", "c", "", "Configuration file to read the admin address from, if --address is not used")
			cmd.PersistentFlags().StringP("adapter", "a", "", "Name of the config adapter of --config")

			statusCmd := &cobra.Command{
				Use:   statusUsage,
				Short: "Prints every llm_thinking handler and registry, and the memory budget",
				Args:  cobra.NoArgs,
				RunE:  run(runStatus),
			}
			statusCmd.Flags().Bool("json", false, "Print one JSON document")

			switchCmd := &cobra.Command{
				Use:   switchUsage,
				Short: "Switches a route to another backend, and upstreams",
				Args:  needBackend,
				RunE:  run(runSwitch),
			}
			switchCmd.Flags().String("route", "", "The route to switch, by @id or config path")

			forgetCmd := &cobra.Command{
				Use:   forgetUsage,
				Short: "Forgets what was learned of a backend's models",
				Args:  cobra.RangeArgs(1, 2),
				RunE:  run(runForget),
			}
			forgetCmd.Flags().String("registry", "", "Forget in this registry only")

			cmd.AddCommand(statusCmd, switchCmd, forgetCmd)
		},
	}
}

// run adapts a subcommand to cobra the way Caddy's own commands are:
// through caddycmd.WrapCommandFuncForCobra, so that an error is logged by
// Caddy's logger and the exit status is Caddy's. The subcommand writes to
// the command's output.
func run(f func(out io.Writer, a admin, fl caddycmd.Flags) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		return caddycmd.WrapCommandFuncForCobra(func(fl caddycmd.Flags) (int, error) {
			addr, err := caddycmd.DetermineAdminAPIAddress(fl.String("address"), nil, fl.String("config"), fl.String("adapter"))
			if err != nil {
				return caddy.ExitCodeFailedStartup, err
			}
			if err := f(cmd.OutOrStdout(), admin{addr: addr}, fl); err != nil {
				return caddy.ExitCodeFailedStartup, err
			}
			return caddy.ExitCodeSuccess, nil
		})(cmd, args)
	}
}

// runStatus is `status`.
func runStatus(out io.Writer, a admin, fl caddycmd.Flags) error {
	return status(out, a, fl.Bool("json"))
}

// needBackend checks that switch was given the backend to switch to.
func needBackend(_ *cobra.Command, args []string) error {
	if len(args) == 0 {
		return errors.New("switch needs the backend to switch to: caddy llm-thinking " + switchUsage)
	}
	return nil
}

// runSwitch is `switch`.
func runSwitch(out io.Writer, a admin, fl caddycmd.Flags) error {
	args := fl.Args()
	return switchBackend(out, a, switchRequest{route: fl.String("route"), backend: args[0], upstreams: args[1:]})
}

// runForget is `forget`.
func runForget(out io.Writer, a admin, fl caddycmd.Flags) error {
	args := fl.Args()
	req := adminapi.Forget{Registry: fl.String("registry"), Backend: args[0]}
	if len(args) > 1 {
		req.Model = args[1]
	}
	return forget(out, a, req)
}

// Package command is the `caddy llm-thinking` subcommand, which a Caddy
// built with llm_thinking has, registered when the package is imported:
// `status` shows every llm_thinking handler of the running config, the
// statistics of every registry and the memory budget of the process;
// `switch` moves one route to another backend, and to other upstreams, in
// one config change; `forget` drops what the registries learned of a
// backend's models.
//
// All three talk to a running Caddy through its admin API only, the way
// `caddy stop` and `caddy reload` do, and read the config as the admin API
// serves it (JSON), and the admin endpoints' documents as package adminapi
// defines them. The package never imports the module's handler, and never
// prints a header, a body or anything else of the config than backend
// names, modes, registry names and upstream addresses: configs can hold API
// keys.
package command

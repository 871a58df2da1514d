package main

import (
	"context"
	"io"
	"sort"
	"strings"
)

// command is a subcommand of the example server: `server NAME [flags]`.
// Without a command name the server serves.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error
}

// commands lists the subcommands, by name.
var commands = map[string]command{
	"backup":        {"copy the bbolt file of a stopped server into a new file (a running one: GET /v1/admin/backup)", runBackup},
	"import":        {"import a catalog file (XLSX, CSV or a zip of CSV) into an account", runImport},
	"migrate":       {"copy the bbolt file into an empty PostgreSQL database", runMigrate},
	"restore":       {"install a backup as a new database file, checked before it gets its name", runRestore},
	"verify-domain": {"mark an email domain verified for an account (single sign-on without public DNS)", runVerifyDomain},
}

// commandOf returns the subcommand args name, if any, and its arguments.
func commandOf(args []string) (command, []string, bool) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return command{}, args, false
	}
	c, ok := commands[args[0]]
	return c, args[1:], ok
}

// commandUsage lists the subcommands for the usage text.
func commandUsage() string {
	if len(commands) == 0 {
		return ""
	}
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("\nCommands (server COMMAND -h for their flags):\n")
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, n := range names {
		b.WriteString("  " + n + strings.Repeat(" ", width+3-len(n)) + commands[n].summary + "\n")
	}
	return b.String()
}

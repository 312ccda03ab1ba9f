package tools

import (
	"context"
	_ "embed"
	"strings"
)

//go:embed spawn_agent.md
var spawnAgentDescription string

type spawnAgentParams struct {
	Task            string `json:"task" jsonschema:"The whole brief: what to find or do, where to look, and what to report back"`
	Mode            string `json:"mode,omitempty" enum:"explore,agent" jsonschema:"explore (read only, the default) or agent (may change files)"`
	RunInBackground bool   `json:"run_in_background,omitempty" jsonschema:"true to go on at once and get the result later"`
}

// Delegator starts the subagents of a session's runs (agent.Subagents).
type Delegator interface {
	Spawn(ctx context.Context, s Spawn, out Output) (Result, error)
}

// Spawn is one subagent to start.
type Spawn struct {
	Task       string
	Mode       string // "explore" or "agent"
	Background bool
}

// Subagent modes.
const (
	SubagentExplore = "explore"
	SubagentAgent   = "agent"
)

// ForSubagent is r as a subagent gets it: the tools that delegate are refused, since a subagent
// does its work itself.
func (r *Registry) ForSubagent() *Registry {
	out := r
	for _, t := range r.List() {
		if AboutOf(t).Category.ID == CategoryDelegate.ID {
			out = out.Withhold(t.Name(), "A subagent cannot start subagents of its own: do the work with your own tools.")
		}
	}
	return out
}

// SpawnAgent starts a subagent: a run of its own with a fresh context over the same workspace.
func SpawnAgent(env *Env) Tool {
	return spawnTool{env: env, Tool: spawnAgent(env, true)}
}

func spawnAgent(env *Env, write bool) Tool {
	return Define("spawn_agent", KindOther, spawnAgentDescription,
		About{
			Label: "Delegate to subagents", Summary: "Hand part of the task to a helper with a fresh context, in the foreground or the background.",
			Category: CategoryDelegate, Optional: true,
			View:     spawnView,
			Practice: "A search or investigation that would fill your context with files, or a separate piece of work: spawn_agent with a complete brief, and use its report.",
		},
		func(ctx context.Context, p spawnAgentParams, out Output) (Result, error) {
			task := strings.TrimSpace(p.Task)
			if task == "" {
				return Fail(ErrInvalidArguments, "task is empty: write the whole brief for the subagent."), nil
			}
			mode := p.Mode
			if mode == "" {
				mode = SubagentExplore
			}
			if mode == SubagentAgent && !write {
				return Fail(ErrDenied, "In this mode a subagent may only explore: use mode \"explore\", or leave mode out."), nil
			}
			return env.Agents.Spawn(ctx, Spawn{Task: task, Mode: mode, Background: p.RunInBackground}, out)
		})
}

// spawnTool is offered where the session can start subagents, and in a read-only run only for
// subagents that read.
type spawnTool struct {
	Tool
	env *Env
}

func (t spawnTool) About() About  { return t.Tool.(Described).About() }
func (t spawnTool) Offered() bool { return t.env.Agents != nil }

func (t spawnTool) Narrow(a Access) (Tool, bool) {
	if a.Write {
		return t, true
	}
	return spawnTool{env: t.env, Tool: spawnAgent(t.env, false)}, true
}

func spawnView(args map[string]any) CallView {
	task := "“" + StringArg(args, "task", 60) + "”"
	if background, _ := args["run_in_background"].(bool); background {
		return CallView{Running: "Starting a background task " + task, Done: "Started a background task " + task, Spinner: "Delegating…"}
	}
	return CallView{Running: "Delegating " + task, Done: "Delegated " + task, Spinner: "Delegating…"}
}

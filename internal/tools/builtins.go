package tools

import "gantry/internal/terminal"

// Builtins are the workspace tools of SPEC §6, in the order the model sees them: reading and
// searching first (small models tend to pick from the top), then the code intelligence tools
// (offered only where a language server exists), then changing, then running, then the task
// list and delegation (offered in sessions that keep a list and can start subagents).
func Builtins(env *Env, session *terminal.Session) []Tool {
	return []Tool{
		ReadFile(env),
		ListFiles(env),
		Glob(env),
		SearchWorkspace(env),
		FindSymbol(env),
		GetDocumentSymbols(env),
		FindDefinition(env),
		FindReferences(env),
		FindImplementations(env),
		GetHoverInfo(env),
		GetCallHierarchy(env),
		GetTypeHierarchy(env),
		GetDiagnostics(env),
		EditFile(env),
		WriteFile(env),
		RunTerminalCommand(env, session),
		UndoFile(env),
		UndoTurn(env),
		TaskCreate(env),
		TaskUpdate(env),
		TaskGet(env),
		TaskList(env),
		SpawnAgent(env),
	}
}

// NewBuiltinRegistry returns a registry holding the built-in tools.
func NewBuiltinRegistry(env *Env, session *terminal.Session) (*Registry, error) {
	r := NewRegistry()
	for _, t := range Builtins(env, session) {
		if err := r.Register(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

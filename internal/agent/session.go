package agent

import (
	"crypto/rand"
	"encoding/hex"
	"strings"

	"gantry/internal/checkpoint"
	"gantry/internal/ignore"
	"gantry/internal/safety"
	"gantry/internal/store"
	"gantry/internal/terminal"
	"gantry/internal/tools"
)

// SessionTools is what one session's runs share: the built-in tools over the workspace (with one
// terminal session, so `cd` carries over from run to run) and the checkpoints of its runs. The
// desktop app keeps one per open session; `gantry run` makes one for its single run.
type SessionTools struct {
	db          *store.DB
	Registry    *tools.Registry
	Checkpoints *checkpoint.Manager
}

// NewSessionTools wires the built-in tools of session sessionID over root, asking approver
// before writes and commands.
func NewSessionTools(db *store.DB, sessionID, root string, approver tools.Approver) (*SessionTools, error) {
	cps := checkpoint.New(db, sessionID)
	env := &tools.Env{
		Root: root, Ignore: ignore.New(root), Checkpoints: cps.Checkpointer(), FileRules: safety.DefaultFileRules(),
		Approver: approver,
	}
	registry, err := tools.NewBuiltinRegistry(env, terminal.NewSession(root))
	if err != nil {
		return nil, err
	}
	return &SessionTools{db: db, Registry: registry, Checkpoints: cps}, nil
}

// Runner returns a runner over the session's tools. It is cheap, so callers make one per run
// and a changed Ollama host takes effect at the next run.
func (s *SessionTools) Runner(model ChatModel, sink EventSink) *Runner {
	return NewRunner(Deps{LLM: model, Events: sink, Messages: s.db, Tools: s.Registry, Checkpoints: s.Checkpoints})
}

// SessionTitle names a new session after the first line of its first message.
func SessionTitle(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	line = strings.TrimSpace(line)
	if r := []rune(line); len(r) > 60 {
		return strings.TrimSpace(string(r[:59])) + "…"
	}
	return line
}

// NewRunID returns a random run id.
func NewRunID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

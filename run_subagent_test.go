package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"gantry/internal/llm/fakeollama"
)

// headlessLines runs gantry and hands each stdout line to see as it arrives, then returns the
// exit code and all the lines.
func headlessLines(t *testing.T, cmd *exec.Cmd, see func(line map[string]any)) (int, []map[string]any) {
	t.Helper()
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var lines []map[string]any
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line), sc.Text())
		lines = append(lines, line)
		see(line)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), lines
	}
	require.NoError(t, err)
	return 0, lines
}

func payloadOf(line map[string]any) map[string]any {
	p, _ := line["payload"].(map[string]any)
	return p
}

func linesOf(lines []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, l := range lines {
		if l["type"] == typ {
			out = append(out, l)
		}
	}
	return out
}

const headlessTask = "Look into the notes"

// parallelConfig is a config folder whose settings let n model requests go at once: the tests
// that hold the parent's and the task's answers together need an Ollama that serves both.
func parallelConfig(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "settings.json"), fmt.Appendf(nil, `{"modelRequests": %d}`, n), 0o644))
	return dir
}

// gantry run waits for its background task, hands the notice to the model in a turn of its
// own, and only then prints the final line.
func TestRunHeadlessWaitsForBackgroundTasks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "notes.txt"), []byte("one\ntwo\n"), 0o644))
	brief := "Count the lines of notes.txt"
	fake := fakeollama.NewTest(t, fakeollama.Script{
		Models: []fakeollama.Model{{Name: "coder:latest", Arch: "qwen3", ContextLength: 40960, Capabilities: []string{"completion", "tools"}}},
		Turns: []fakeollama.Turn{
			{When: headlessTask, Chunks: []fakeollama.Chunk{{ToolCalls: []fakeollama.ToolCall{{Name: "spawn_agent", Arguments: map[string]any{"task": brief, "run_in_background": true}}}}}},
			{When: headlessTask, Hold: "parent", Chunks: []fakeollama.Chunk{{Content: "The count is under way. [TASK_COMPLETE]"}}},
			{When: brief, Hold: "sub", Chunks: []fakeollama.Chunk{{Content: "notes.txt has 2 lines. [TASK_COMPLETE]"}}},
			{When: headlessTask, Chunks: []fakeollama.Chunk{{Content: "notes.txt has 2 lines. [TASK_COMPLETE]"}}},
		},
	})
	cmd, _, stderr := gantryCommand(buildGantry(t), fake, "run", "--workspace", root, "--model", "coder",
		"--data-dir", t.TempDir(), "--config-dir", parallelConfig(t, 2), headlessTask)
	cmd.Stdout = nil
	released := false
	code, lines := headlessLines(t, cmd, func(line map[string]any) {
		if line["type"] == "taskStarted" && !released {
			released = true
			// The parent finishes its turn first; the task's answer comes after it.
			require.NoError(t, fake.WaitHeld(t.Context(), "parent", 1))
			require.NoError(t, fake.WaitHeld(t.Context(), "sub", 1))
			fake.Release("parent")
			fake.Release("sub")
		}
	})
	require.Equal(t, 0, code, stderr.String())

	started, ended := linesOf(lines, "taskStarted"), linesOf(lines, "taskNotification")
	require.Len(t, started, 1)
	require.Len(t, ended, 1)
	require.Equal(t, payloadOf(started[0])["taskId"], payloadOf(ended[0])["taskId"])
	require.Equal(t, "done", payloadOf(ended[0])["status"])
	final := lines[len(lines)-1]
	require.Equal(t, "final", final["type"])
	require.Equal(t, "done", final["status"])
	require.Equal(t, "notes.txt has 2 lines.", final["message"], "the last turn is the one the notice started")
	reqs := fake.Requests()
	require.Contains(t, reqs[len(reqs)-1].Messages[len(reqs[len(reqs)-1].Messages)-1].Content, "<task-notification>")
}

// A signal while background tasks run cancels them; each task's cancelled notice is printed
// before the final line, which says the run was stopped, and the exit code says so too.
func TestRunHeadlessSignalCancelsBackgroundTasksWithTheirNotices(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	brief := "Watch the logs"
	fake := fakeollama.NewTest(t, fakeollama.Script{
		Models: []fakeollama.Model{{Name: "coder:latest", Arch: "qwen3", ContextLength: 40960, Capabilities: []string{"completion", "tools"}}},
		Turns: []fakeollama.Turn{
			{When: headlessTask, Chunks: []fakeollama.Chunk{{ToolCalls: []fakeollama.ToolCall{{Name: "spawn_agent", Arguments: map[string]any{"task": brief, "run_in_background": true}}}}}},
			{When: headlessTask, Chunks: []fakeollama.Chunk{{Content: "Watching. [TASK_COMPLETE]"}}},
			{When: brief, Hold: "never"},
		},
	})
	cmd, _, stderr := gantryCommand(buildGantry(t), fake, "run", "--workspace", root, "--model", "coder",
		"--data-dir", t.TempDir(), "--config-dir", parallelConfig(t, 2), headlessTask)
	cmd.Stdout = nil
	parentRun := ""
	code, lines := headlessLines(t, cmd, func(line map[string]any) {
		switch {
		case line["type"] == "runStarted" && parentRun == "":
			parentRun, _ = line["runId"].(string)
		case line["type"] == "runFinished" && line["runId"] == parentRun:
			// The parent's turn is over and only the task is left: stop gantry run.
			require.NoError(t, fake.WaitHeld(t.Context(), "never", 1))
			require.NoError(t, cmd.Process.Signal(os.Interrupt))
		}
	})
	require.Equal(t, 3, code, stderr.String())
	ended := linesOf(lines, "taskNotification")
	require.Len(t, ended, 1)
	require.Equal(t, "cancelled", payloadOf(ended[0])["status"])
	final := lines[len(lines)-1]
	require.Equal(t, "final", final["type"])
	require.Equal(t, "cancelled", final["status"])
	require.True(t, strings.HasPrefix(final["message"].(string), "Stopped"))
}

// By default the run and its background task take turns at the model: whichever asks second
// waits in line and says so, and the run still ends once the task's notice reached the model.
func TestRunHeadlessLinesUpTheTaskAndTheRunAtTheModel(t *testing.T) {
	t.Parallel()
	brief := "Count the lines of notes.txt"
	fake := fakeollama.NewTest(t, fakeollama.Script{
		Models: []fakeollama.Model{{Name: "coder:latest", Arch: "qwen3", ContextLength: 40960, Capabilities: []string{"completion", "tools"}}},
		Turns: []fakeollama.Turn{
			{When: headlessTask, Chunks: []fakeollama.Chunk{{ToolCalls: []fakeollama.ToolCall{{Name: "spawn_agent", Arguments: map[string]any{"task": brief, "run_in_background": true}}}}}},
			{When: headlessTask, Hold: "parent", Chunks: []fakeollama.Chunk{{Content: "Counting. [TASK_COMPLETE]"}}},
			{When: brief, Hold: "sub", Chunks: []fakeollama.Chunk{{Content: "notes.txt has 2 lines. [TASK_COMPLETE]"}}},
			{When: headlessTask, Chunks: []fakeollama.Chunk{{Content: "notes.txt has 2 lines. [TASK_COMPLETE]"}}},
		},
	})
	cmd, _, stderr := gantryCommand(buildGantry(t), fake, "run", "--workspace", t.TempDir(), "--model", "coder",
		"--data-dir", t.TempDir(), "--config-dir", t.TempDir(), headlessTask)
	cmd.Stdout = nil
	parentRun, held := "", ""
	code, lines := headlessLines(t, cmd, func(line map[string]any) {
		if line["type"] == "runStarted" && parentRun == "" {
			parentRun, _ = line["runId"].(string)
		}
		if line["type"] == "modelWaiting" && payloadOf(line)["phase"] == "queued" && held == "" {
			// One of them has the model (held there), the other waits in line.
			held = "parent"
			if line["runId"] == parentRun {
				held = "sub"
			}
			require.NoError(t, fake.WaitHeld(t.Context(), held, 1))
			require.Equal(t, 1, fake.Held("parent")+fake.Held("sub"), "only one request is with the model")
			fake.Release("parent")
			fake.Release("sub")
		}
	})
	require.Equal(t, 0, code, stderr.String())
	require.NotEmpty(t, held, "neither waited in line")
	require.Len(t, linesOf(lines, "taskNotification"), 1)
	final := lines[len(lines)-1]
	require.Equal(t, "final", final["type"])
	require.Equal(t, "done", final["status"])
	var told bool
	for _, r := range fake.Requests() {
		told = told || strings.Contains(r.Messages[len(r.Messages)-1].Content, "<task-notification>")
	}
	require.True(t, told, "the task's notice reached the model")
}

package store

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTaskListIsPerSessionInOrderAndGoesWithTheSession(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := openTest(t)
	a, b := createSession(t, db, "/w"), createSession(t, db, "/w")

	first, err := db.AddTask(ctx, a.ID, "Read the loader", "pending", "")
	require.NoError(t, err)
	second, err := db.AddTask(ctx, a.ID, "Add the flag", "pending", "in config.go")
	require.NoError(t, err)
	other, err := db.AddTask(ctx, b.ID, "Elsewhere", "pending", "")
	require.NoError(t, err)
	require.Equal(t, []int{1, 2, 1}, []int{first.ID, second.ID, other.ID})

	done := "done"
	got, err := db.UpdateTask(ctx, a.ID, 1, TaskChange{Status: &done})
	require.NoError(t, err)
	require.Equal(t, "done", got.Status)
	require.Equal(t, "Read the loader", got.Title, "fields not given stay")

	_, err = db.UpdateTask(ctx, a.ID, 9, TaskChange{Status: &done})
	require.ErrorIs(t, err, ErrNotFound)
	bad := "finished"
	_, err = db.UpdateTask(ctx, a.ID, 1, TaskChange{Status: &bad})
	require.Error(t, err, "the table holds only the three statuses")

	list, err := db.Tasks(ctx, a.ID)
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, "done", list[0].Status)
	require.Equal(t, "in config.go", list[1].Notes)

	require.NoError(t, db.DeleteSession(ctx, a.ID))
	list, err = db.Tasks(ctx, a.ID)
	require.NoError(t, err)
	require.Empty(t, list)
	list, err = db.Tasks(ctx, b.ID)
	require.NoError(t, err)
	require.Len(t, list, 1)
}

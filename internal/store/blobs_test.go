package store

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func blobRow(t *testing.T, db *DB, hash string) (encoding int, stored int) {
	t.Helper()
	require.NoError(t, db.sql.QueryRow(`SELECT encoding, LENGTH(data) FROM blobs WHERE hash = ?`, hash).Scan(&encoding, &stored))
	return encoding, stored
}

func TestPutBlobStoresEachContentOnce(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := context.Background()
	text := []byte(strings.Repeat("func main() { fmt.Println(\"hello\") }\n", 2000))

	first, err := db.PutBlob(ctx, text)
	require.NoError(t, err)
	require.Equal(t, Hash(text), first)
	second, err := db.PutBlob(ctx, append([]byte{}, text...))
	require.NoError(t, err)
	require.Equal(t, first, second)
	var rows int
	require.NoError(t, db.sql.QueryRow(`SELECT COUNT(*) FROM blobs`).Scan(&rows))
	require.Equal(t, 1, rows)

	encoding, stored := blobRow(t, db, first)
	require.Equal(t, encodingDeflate, encoding)
	require.Less(t, stored, len(text)/10, "repetitive text compresses")
	got, err := db.GetBlob(ctx, first)
	require.NoError(t, err)
	require.Equal(t, text, got)
}

func TestIncompressibleAndEmptyBlobsAreStoredRaw(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := context.Background()
	random := make([]byte, 256<<10)
	_, _ = rand.Read(random)

	for _, data := range [][]byte{random, {}} {
		hash, err := db.PutBlob(ctx, data)
		require.NoError(t, err)
		encoding, stored := blobRow(t, db, hash)
		require.Equal(t, encodingRaw, encoding)
		require.Equal(t, len(data), stored)
		got, err := db.GetBlob(ctx, hash)
		require.NoError(t, err)
		require.Len(t, got, len(data))
		require.Equal(t, Hash(data), Hash(got))
	}
}

func TestGetBlobRefusesCorruptOrMissingContent(t *testing.T) {
	t.Parallel()
	db, _ := openTest(t)
	ctx := context.Background()
	hash, err := db.PutBlob(ctx, []byte{0, 1, 2, 3, 4, 5, 6, 7})
	require.NoError(t, err)
	_, err = db.sql.Exec(`UPDATE blobs SET data = X'0001020304050607FF' WHERE hash = ?`, hash)
	require.NoError(t, err)
	_, err = db.GetBlob(ctx, hash)
	require.ErrorContains(t, err, "corrupt")

	_, err = db.GetBlob(ctx, Hash([]byte("never stored")))
	require.ErrorIs(t, err, ErrNotFound)
}

// Compressed in parts on several cores, a blob is still one deflate stream that reads back
// whole, whatever the number of parts and however unevenly the size divides, and costs little
// more room than in one part.
func TestDeflateInPartsIsOneStream(t *testing.T) {
	t.Parallel()
	var text strings.Builder
	for i := 0; text.Len() < 300_000; i++ {
		fmt.Fprintf(&text, "\tv%d := compute(%d, ctx)\n", i, i*7919%1000)
	}
	random := make([]byte, 70_001)
	_, _ = rand.Read(random)
	for name, data := range map[string][]byte{"text": []byte(text.String()), "random": random, "small": []byte("tiny\n"), "empty": {}} {
		whole := deflate(data, 1)
		for parts := 1; parts <= 5; parts++ {
			stored := deflate(data, parts)
			got, err := decodeBlob(encodingDeflate, stored, int64(len(data)))
			require.NoError(t, err, "%s in %d parts", name, parts)
			require.Equal(t, Hash(data), Hash(got), "%s in %d parts", name, parts)
			if name == "text" {
				require.Less(t, len(stored), len(whole)*105/100, "%d parts", parts)
			}
		}
	}
}

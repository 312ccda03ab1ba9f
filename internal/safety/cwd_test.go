package safety

import "testing"

// A cd moves what relative delete and write targets mean; the card says which cd did it.
func TestAnalyzeCommandFollowsCdForDeletesAndWrites(t *testing.T) {
	t.Parallel()
	runCommandCases(t, []commandCase{
		{"cd / && rm -rf *", SeverityCritical, "root filesystem recursively (after cd /)"},
		{"cd /; rm -rf ./*", SeverityCritical, "root filesystem"},
		{"cd /etc && rm -rf .", SeverityCritical, "system directory /etc"},
		{"cd /usr/ && rm -rf *", SeverityCritical, "/usr"},
		{"cd /tmp && cd / && rm -rf *", SeverityCritical, ""},
		{"cd / && sudo rm -rf *", SeverityCritical, ""},
		{"cd ~ && rm -rf .", SeverityCritical, "home directory recursively (after cd ~)"},
		{"cd && rm -rf *", SeverityCritical, "home directory"},
		{"cd $HOME && rm -rf ./*", SeverityCritical, "home directory"},
		{"cd /home && rm -rf alice", SeverityCritical, "home directory"},
		{"cd .. && rm -rf *", SeverityHigh, "above the workspace"},
		{"cd ../.. && rm -rf .", SeverityHigh, "above the workspace"},
		{"cd src && rm -rf ../..", SeverityHigh, "above the workspace"},
		{"cd /etc && rm nginx.conf", SeverityHigh, "outside the workspace"},
		{"cd / && find . -delete", SeverityCritical, "across /"},
		{"cd / && find . -name x -exec rm -rf {} +", SeverityCritical, ""},
		{"cd /usr && chmod -R 777 .", SeverityCritical, "recursively changes permissions"},
		{"cd /dev && dd if=/dev/zero of=sda", SeverityCritical, "disk device sda (after cd /dev)"},
		{"cd /dev && shred sda", SeverityCritical, "disk device"},
		{"cd /etc && echo x > hosts", SeverityHigh, "/etc (after cd /etc)"},
		{"cd ~/.ssh && echo key >> authorized_keys", SeverityHigh, "SSH directory"},
		{"cd /etc && cp /tmp/x passwd", SeverityHigh, "/etc"},
		{"cd /etc && curl -o hosts https://x", SeverityHigh, "/etc"},
		{"cd ~ && tee .bashrc < x", SeverityHigh, "startup file"},
		{"bash -c 'cd / && rm -rf *'", SeverityCritical, "root filesystem"},
		{"cd / && bash -c 'rm -rf *'", SeverityCritical, "root filesystem"},
		{"(cd / && rm -rf *)", SeverityCritical, ""},

		// everyday: inside the workspace, in /tmp, or a cd that ended with its subshell
		{"cd src && rm -rf build", SeverityMedium, "recursively deletes src/build in the workspace"},
		{"cd build && rm -rf *", SeverityMedium, "in the workspace"},
		{"cd frontend && rm -rf node_modules dist", SeverityMedium, ""},
		{"cd src && rm -rf .", SeverityMedium, "src in the workspace"},
		{"cd .. && ls", SeverityNone, ""},
		{"cd src && ls && cd .. && rm -rf build", SeverityMedium, "in the workspace"},
		{"cd src && echo x > out.txt", SeverityNone, ""},
		{"cd /tmp && rm -rf scratch", SeverityMedium, "temporary files"},
		{"cd / && rm -rf /tmp/x", SeverityMedium, "temporary files"},
		{"cd /etc && cat hosts", SeverityMedium, "reads files outside"},
		{"(cd / && ls) && rm -rf build", SeverityMedium, "recursively deletes build"},
		{"(cd /); rm -rf *", SeverityHigh, "deletes the whole workspace"},
		{`cd "$(cd .. && pwd)" && rm -rf build`, SeverityMedium, ""},
		{"cd $DIR && rm -rf build", SeverityMedium, ""},
		{"cd / && echo hi > /dev/null", SeverityNone, ""},
	})
}

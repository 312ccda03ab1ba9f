#!/usr/bin/python3
"""Starts a desktop app on the current X display and measures its window, for scripts/bench-ui.sh.

Prints one line "mapped_ms painted_ms rss_mib pss_mib":
  mapped   from exec until a visible window with that exact title exists;
  painted  until that window's pixels show page content: at least 3 colours other than the
           window's background colour among a 4-px grid, on at least 1% of the grid (a mapped
           but unpainted WebKit view is one flat colour);
  rss/pss  after 3 s idle, summed over the process and all its descendants (WebKitGTK runs the
           page in WebKitWebProcess and networking in WebKitNetworkProcess).
With BENCH_SHOT=FILE.png it saves the first painted picture there.
Usage: bench-ui-window.py TITLE BACKGROUND_HEX COMMAND [ARGS…]
"""
import os
import subprocess
import sys
import time

import gi

gi.require_version("Gdk", "3.0")
from gi.repository import Gdk  # noqa: E402

title, bg_hex, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
bg = bytes.fromhex(bg_hex)
root = Gdk.get_default_root_window()


def find_window():
    r = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", f"^{title}$"], capture_output=True, text=True)
    for wid in r.stdout.split():
        if subprocess.run(["xdotool", "getwindowname", wid], capture_output=True, text=True).stdout.strip() == title:
            return wid
    return None


def geometry(wid):
    r = subprocess.run(["xdotool", "getwindowgeometry", "--shell", wid], capture_output=True, text=True)
    g = dict(line.split("=", 1) for line in r.stdout.split())
    return int(g["X"]), int(g["Y"]), int(g["WIDTH"]), int(g["HEIGHT"])


def painted(x, y, w, h):
    pb = Gdk.pixbuf_get_from_window(root, x, y, w, h)
    if pb is None:
        return False
    px, n, stride = pb.get_pixels(), pb.get_n_channels(), pb.get_rowstride()
    colours, other, total = set(), 0, 0
    for yy in range(0, h, 4):
        row = yy * stride
        for xx in range(0, w, 4):
            c = px[row + xx * n : row + xx * n + 3]
            total += 1
            if c != bg:
                other += 1
                colours.add(c)
    done = len(colours) >= 3 and other * 100 >= total
    if done and os.environ.get("BENCH_SHOT"):
        pb.savev(os.environ["BENCH_SHOT"], "png", [], [])
    return done


def tree(pid):
    """pid and its descendants, from /proc/*/stat parent ids."""
    parents = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    parents[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += [c for c, pp in parents.items() if pp == p]
    return out


def memory(pid):
    rss = pss = 0
    for p in tree(pid):
        try:
            with open(f"/proc/{p}/smaps_rollup") as f:
                for line in f:
                    k, v = line.split(":", 1)
                    if k == "Rss":
                        rss += int(v.split()[0])
                    elif k == "Pss":
                        pss += int(v.split()[0])
        except OSError:
            pass
    return rss / 1024, pss / 1024


start = time.monotonic()
proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    wid = None
    while wid is None:
        if time.monotonic() - start > 20 or proc.poll() is not None:
            sys.exit(f"{cmd[0]}: no window titled {title!r}")
        wid = find_window()
        if wid is None:
            time.sleep(0.005)
    mapped = time.monotonic() - start
    while True:
        if time.monotonic() - start > 30:
            sys.exit(f"{cmd[0]}: window never painted")
        if painted(*geometry(wid)):
            break
        time.sleep(0.005)
    shown = time.monotonic() - start
    time.sleep(3)
    rss, pss = memory(proc.pid)
    print(f"{mapped * 1000:.0f} {shown * 1000:.0f} {rss:.0f} {pss:.0f}")
finally:
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()

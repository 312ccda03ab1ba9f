#!/usr/bin/python3
"""A tiny GTK window that offers one path as a drag source (text/uri-list), like a file manager.

The desktop smoke test starts it, then drags from it onto Gantry's window with xdotool, so the
drop goes through the real X drag-and-drop protocol and WebKitGTK, not a simulated JS event.
Usage: drag-source.py PATH X Y
"""
import sys
from pathlib import Path

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk  # noqa: E402

path, x, y = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
uri = Path(path).absolute().as_uri()

win = Gtk.Window(title="gantry-drag-source")
win.set_default_size(160, 120)
win.move(x, y)
button = Gtk.Button(label="drag me")
button.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [], Gdk.DragAction.COPY)
button.drag_source_add_uri_targets()
button.connect("drag-data-get", lambda _w, _ctx, data, _info, _time: data.set_uris([uri]))
win.add(button)
win.connect("destroy", Gtk.main_quit)
win.show_all()
print("ready", flush=True)
Gtk.main()

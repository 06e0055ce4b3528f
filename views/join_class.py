"""Join a class: by the link (or QR code) the instructor shares, by typing its code, or,
with the instructor link, taking control of it. All of it lives in ui/classmode/panels.py."""
from ui.classmode import panels as class_panels

class_panels.join_page()

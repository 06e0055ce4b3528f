"""Teach a class: start one on the Train page's corpus (or go back to the class this
browser runs). All of it lives in ui/classmode/panels.py."""
from ui.classmode import panels as class_panels

class_panels.teach_page()

"""(being written this session: backward / composite rules for #23)"""

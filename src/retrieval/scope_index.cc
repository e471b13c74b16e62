// placeholder: written with issue 3

"""The workbench's project file (`*.tokproj`): its contents and format (`project_file`) and the
zip archive of named parts it is written as (`archive`). The library never imports this package.
"""

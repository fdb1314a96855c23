#!/bin/bash
cd /work
tar --exclude='__pycache__' --exclude='.cache' --exclude='*.pyc' --exclude='*.log' -czf /work/backup.tar.gz project
